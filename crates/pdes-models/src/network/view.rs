//! Where the heatmap draws a network's stations, by index, row by row: a generated torus or
//! tandem as its rows (a tandem's lines) and columns, any other network on a grid about as
//! wide as tall.

use super::config::Written;
use super::shapes::Shape;

/// The heatmap's (rows, columns) for a network of `stations` given as `written`.
pub fn layout(written: &Written, stations: usize) -> (u32, u32) {
    match written {
        Written::Shape(Shape::Torus { rows, cols, .. }) => (*rows, *cols),
        Written::Shape(Shape::Tandem {
            lines,
            servers_per_line,
            ..
        }) => (*lines, *servers_per_line),
        _ => grid(stations),
    }
}

/// The grid (rows, columns) that holds `stations` stations: columns = ⌈√n⌉, rows enough.
pub fn grid(stations: usize) -> (u32, u32) {
    let cols = (stations as f64).sqrt().ceil().max(1.0) as u32;
    let rows = (stations as u32).div_ceil(cols).max(1);
    (rows, cols)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_grid_holds_every_station_and_is_about_square() {
        for n in [1usize, 2, 3, 10, 1000, 1_000_003] {
            let (r, c) = super::grid(n);
            assert!(
                (r * c) as usize >= n && ((r - 1) * c) < n as u32,
                "{n}: {r}×{c}"
            );
            assert!(r <= c, "{n}: {r}×{c}");
        }
    }
}
