//! Where the window draws a network's stations: until the network view comes (issue 55 §4),
//! the heatmap by station index — stations row by row on a grid about as wide as tall.

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
