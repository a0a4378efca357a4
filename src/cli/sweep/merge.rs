//! `pdes-lab sweep-merge`: the shards' CSVs joined into the unsharded file, every row and
//! the whole checked before anything is written.

use super::rows::{DIGEST, csv_line, digest_holds, empty_shard};
use super::{CliError, MergeArgs, input, output};
use pdes_models::config::echo;
use std::path::Path;

/// One shard of `sweep-merge`, read strictly: its header and rows, every row whole.
fn read_shard(path: &Path) -> Result<(Vec<String>, Vec<Vec<String>>), CliError> {
    let name = path.display();
    let mut r = csv::ReaderBuilder::new()
        .flexible(true)
        .from_path(path)
        .map_err(|e| input(format!("{name}: {e}")))?;
    let header: Vec<String> = r
        .headers()
        .map_err(|e| input(format!("{name}: {e}")))?
        .iter()
        .map(str::to_string)
        .collect();
    if !header.iter().any(|h| h == DIGEST) {
        return Err(input(format!(
            "{name}: no {DIGEST} column: not a sweep CSV of this version (run the shard again, or complete it with sweep … --resume)"
        )));
    }
    let mut rows = Vec::new();
    for (i, rec) in r.records().enumerate() {
        let rec = rec.map_err(|e| input(format!("{name}: line {}: {e}", i + 2)))?;
        if rec.len() != header.len() {
            return Err(input(format!(
                "{name}: line {} has {} of its {} columns (a cut line: the shard was interrupted; complete it with sweep … --resume)",
                i + 2,
                rec.len(),
                header.len()
            )));
        }
        let row: Vec<String> = rec.iter().map(str::to_string).collect();
        if !digest_holds(&header, &row) {
            // the line as the reader counts it (a cell may hold a line break)
            let line = rec.position().map_or(i as u64 + 2, |p| p.line());
            return Err(input(format!(
                "{name}: line {line} was changed or cut after the sweep wrote it (its {DIGEST} is not that of its cells): a merge takes only the sweep's own rows; run that shard again with sweep … --resume, which runs a changed row again"
            )));
        }
        rows.push(row);
    }
    Ok((header, rows))
}

/// The shards' rows as read: one header (every shard that holds runs has the same) and
/// each row with the index of its file.
struct Shards {
    header: Vec<String>,
    /// (file index, row)
    rows: Vec<(usize, Vec<String>)>,
    /// The sweep's identity, points and seeds, as the first row gives them.
    identity: String,
    points: String,
    seeds: String,
    /// Columns of the identity, the point, the points, the seed and the seeds.
    columns: (usize, usize, usize, usize, usize),
}

/// Reads every shard; refuses shards of different columns, an empty shard of another
/// sweep, and shards that hold no run at all.
fn read_shards(files: &[std::path::PathBuf]) -> Result<Shards, CliError> {
    let mut header: Option<Vec<String>> = None;
    // (file index, row)
    let mut rows: Vec<(usize, Vec<String>)> = Vec::new();
    // shards that hold no point: (file index, [identity, points, seeds])
    let mut empty: Vec<(usize, [String; 3])> = Vec::new();
    for (fi, f) in files.iter().enumerate() {
        let (h, r) = read_shard(f)?;
        if let Some(m) = empty_shard(&h, &r) {
            empty.push((fi, m));
            continue;
        }
        match &header {
            None => header = Some(h),
            Some(h0) if *h0 != h => {
                return Err(input(format!(
                    "{}: its columns differ from {}'s (shards of different sweeps?)",
                    f.display(),
                    files[0].display()
                )));
            }
            _ => {}
        }
        rows.extend(r.into_iter().map(|row| (fi, row)));
    }
    let Some(header) = header else {
        return Err(input(
            "sweep-merge: the shards hold no runs (every one is an empty shard)",
        ));
    };
    let col = |k: &str| {
        header.iter().position(|c| c == k).ok_or_else(|| {
            input(format!(
                "{}: no {k} column (not a sweep CSV of this version)",
                files[0].display()
            ))
        })
    };
    let (iid, ip, ipts, is, iss) = (
        col("sweep")?,
        col("point")?,
        col("points")?,
        col("seed")?,
        col("seeds")?,
    );
    let Some((_, first)) = rows.first() else {
        return Err(input("sweep-merge: the shards hold no runs"));
    };
    let (identity, points, seeds) = (first[iid].clone(), first[ipts].clone(), first[iss].clone());
    for (fi, [id, p, s]) in &empty {
        if *id != identity || *p != points || *s != seeds {
            return Err(input(format!(
                "{}: an empty shard of another sweep (identity {id}, {p} points × {s} seeds; {} holds {identity}, {points} × {seeds}): shards of different sweeps are not merged",
                files[*fi].display(),
                files[rows[0].0].display()
            )));
        }
    }
    Ok(Shards {
        header,
        rows,
        identity,
        points,
        seeds,
        columns: (iid, ip, ipts, is, iss),
    })
}

/// The sweep's points and seeds per point, as whole numbers.
fn grid_size(files: &[std::path::PathBuf], s: &Shards) -> Result<(usize, usize), CliError> {
    let (points, seeds) = (&s.points, &s.seeds);
    let (Ok(n_points), Ok(n_seeds)) = (points.parse::<usize>(), seeds.parse::<usize>()) else {
        return Err(input(format!(
            "{}: points \"{points}\" and seeds \"{seeds}\" must be whole numbers",
            files[0].display()
        )));
    };
    Ok((n_points, n_seeds))
}

/// A row's (point, seed) and its index among the shards' rows.
type KeyedRow = ((usize, Option<i64>), usize);

/// Every row checked — of this sweep, a point inside the grid, a whole-number seed, no run
/// twice — and keyed by (point, seed), sorted: ((point, seed), row index).
fn check_rows(files: &[std::path::PathBuf], s: &Shards) -> Result<Vec<KeyedRow>, CliError> {
    let (n_points, _) = grid_size(files, s)?;
    let (iid, ip, ipts, is, iss) = s.columns;
    let (identity, points, seeds, rows) = (&s.identity, &s.points, &s.seeds, &s.rows);
    let mut keyed: Vec<KeyedRow> = Vec::with_capacity(rows.len());
    for (n, (fi, r)) in rows.iter().enumerate() {
        let file = files[*fi].display();
        if r[iid] != *identity || r[ipts] != *points || r[iss] != *seeds {
            return Err(input(format!(
                "{file}: a row of another sweep (identity {}, {} points × {} seeds; {} holds {identity}, {points} × {seeds}): shards of different sweeps are not merged",
                r[iid],
                r[ipts],
                r[iss],
                files[0].display()
            )));
        }
        let point = r[ip].parse::<usize>().ok().filter(|p| *p < n_points);
        let seed = match r[is].as_str() {
            "" => Some(None),
            t => t.parse::<i64>().ok().map(Some),
        };
        let (Some(point), Some(seed)) = (point, seed) else {
            return Err(input(format!(
                "{file}: a row with point \"{}\" and seed \"{}\" (a point is a whole number below {n_points}, a seed a whole number)",
                echo(&r[ip]),
                echo(&r[is])
            )));
        };
        keyed.push(((point, seed), n));
    }
    keyed.sort();
    if let Some(w) = keyed.windows(2).find(|w| w[0].0 == w[1].0) {
        let ((p, s), _) = w[0];
        let files: Vec<String> = w
            .iter()
            .map(|(_, n)| files[rows[*n].0].display().to_string())
            .collect();
        return Err(input(format!(
            "point {p} seed {} appears twice (overlapping shards? in {} and {})",
            s.map_or("—".into(), |s| s.to_string()),
            files[0],
            files[1]
        )));
    }
    Ok(keyed)
}

/// Refuses a merge that lacks any point's run of any seed, naming the points short.
fn check_complete(
    files: &[std::path::PathBuf],
    s: &Shards,
    keyed: &[KeyedRow],
) -> Result<(), CliError> {
    let (n_points, n_seeds) = grid_size(files, s)?;
    let mut short: Vec<String> = Vec::new();
    for p in 0..n_points {
        let have = keyed.iter().filter(|((q, _), _)| *q == p).count();
        if have != n_seeds {
            short.push(format!("{p} ({have} of {n_seeds} seeds)"));
        }
    }
    if !short.is_empty() {
        let shown = short.len().min(8);
        return Err(CliError::Run(format!(
            "the merged sweep has {} of its {n_points} × {n_seeds} runs: a shard is missing or incomplete; points short: {}{} (nothing written)",
            keyed.len(),
            short[..shown].join(", "),
            if short.len() > shown { ", …" } else { "" }
        )));
    }
    Ok(())
}

/// Runs `pdes-lab sweep-merge`: the shards' rows, in (point, seed) order. Every row is
/// checked (one sweep's identity, a point inside the grid, no run twice) and so is the
/// whole (every point's every seed): a refusal names the shard and the points, and writes
/// nothing.
pub fn merge(args: &MergeArgs) -> Result<(), CliError> {
    if let Some(p) = &args.out {
        output::check_writable(p).map_err(|e| input(format!("--out {}: {e}", p.display())))?;
    }
    let shards = read_shards(&args.files)?;
    let keyed = check_rows(&args.files, &shards)?;
    check_complete(&args.files, &shards, &keyed)?;
    let Shards { header, rows, .. } = shards;
    let mut text = csv_line(&header);
    for (_, n) in &keyed {
        text.push_str(&csv_line(&rows[*n].1));
    }
    output::emit(&text, args.out.as_deref(), "--out")
}
