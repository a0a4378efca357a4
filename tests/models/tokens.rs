//! Token conservation: runs keep every token, and a lost or duplicated token is reported.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test's helpers may panic: that is the test failing

use crate::common_cfg;
use common_cfg::{config, run_cpu};
use pdes_lab::models::torus::cpu::TorusEngine;
use pdes_lab::models::torus::state::NONE;

#[test]
fn every_algorithm_conserves_tokens() {
    for alg in ["sequential", "window", "interval"] {
        for ts in ["original", "boundary"] {
            let a = format!("run.algorithm=\"{alg}\"");
            let t = format!("run.timestamps=\"{ts}\"");
            let cfg = config(&["model.tokens_per_facility=4", "run.end_time=300", &a, &t]);
            let s = run_cpu(&cfg).summary().unwrap();
            assert_eq!(s.tokens_in_system, 1024, "{alg}/{ts}");
        }
    }
}

#[test]
fn a_lost_token_is_reported() {
    let mut e = run_cpu(&config(&["model.tokens_per_facility=3", "run.end_time=50"]));
    let pdes_lab::models::torus::cpu::CpuTorus::Stepped(s) = &mut e.cpu else {
        panic!("window is stepped")
    };
    let f = s
        .state
        .facilities
        .iter()
        .position(|f| f.head != NONE)
        .expect("a queue");
    // Unlink the queue's head: that token is now nowhere.
    let head = s.state.facilities[f].head;
    s.state.facilities[f].head = s.state.tokens[head as usize].next;
    s.state.facilities[f].queued -= 1;
    let err = e.summary().unwrap_err().to_string();
    assert!(
        err.contains("token conservation") && err.contains("lost"),
        "{err}"
    );
}

#[test]
fn a_duplicated_token_is_reported() {
    let mut e = run_cpu(&config(&["run.end_time=50"]));
    let pdes_lab::models::torus::cpu::CpuTorus::Stepped(s) = &mut e.cpu else {
        panic!("window is stepped")
    };
    let busy: Vec<usize> = (0..s.state.facilities.len())
        .filter(|&f| s.state.facilities[f].serving != NONE)
        .collect();
    let t = s.state.facilities[busy[0]].serving;
    s.state.facilities[busy[1]].serving = t;
    let err = e.summary().unwrap_err().to_string();
    assert!(err.contains("two places"), "{err}");
}
