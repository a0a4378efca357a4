#!/usr/bin/env bash
# Runs the benchmark suite on the device machine (see ../shared/gpu/README.md): installs the
# carried Vulkan loader, then writes every output under $OUT. Usage (device tool, from the
# repository root, carrying .gl and carry/): bash bench/device.sh [what...]
set -uo pipefail
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export XDG_RUNTIME_DIR=/tmp/xdg; mkdir -p -m700 $XDG_RUNTIME_DIR
BIN=${BIN:-carry/pdes-lab}
# the experiments' kernels, written here by `python3 bench/experiments/materialize.py
# carry/experiments` (it needs git) and carried: the experiments are kept as patches and
# generators, not as copies of the shaders
EXP=${EXP:-carry/experiments}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$OUT/device.txt" 2>&1
lscpu | grep -E "Model name|^CPU\(s\)|Thread\(s\) per core|Core\(s\) per socket|Socket\(s\)|Hypervisor|L2 cache|L3 cache" >> "$OUT/device.txt"
echo "transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>&1)" >> "$OUT/device.txt"
# Every call proves CPU ≡ GPU first and stops if it does not hold: no benchmark of a wrong
# engine is ever recorded.
$BIN verify --quick > "$OUT/verify-quick.txt" 2>&1 || { cat "$OUT/verify-quick.txt"; echo "verify failed: stopping"; exit 1; }
# torus_ab BINARY...: verify --quick for each, then three interleaved rounds of the torus step
# at d = 0.25 and 1 (2048², T = 5000) and its fixed cost (d = 1e-6), wall µs per step
torus_ab() {
  for b in "$@"; do echo "== $b verify --quick: $($b verify --quick 2>&1 | tail -1)"; done
  for round in 1 2 3; do
    for b in "$@"; do
      for d in 0.25 1; do
        $b run sang2019-torus --engine gpu --set run.d=$d --set run.end_time=5000 --format csv | tail -1 | awk -F, -v d=$d -v b=$b -v r=$round '{printf "round %s %s d=%s T=5000: events=%s steps=%s wall=%s s  %.1f µs/step\n", r, b, d, $16, $17, $25, $25 * 1e6 / $17}'
      done
      $b run sang2019-torus --engine gpu --set run.d=0.000001 --set run.end_time=0.05 --format csv | tail -1 | awk -F, -v b=$b -v r=$round '{printf "round %s %s d=1e-6 T=0.05: events=%s steps=%s wall=%s s  %.1f µs/step\n", r, b, $16, $17, $25, $25 * 1e6 / $17}'
    done
  done
}
# multi_gpu REPLICATIONS: the Fig. 14 sweep (20 seeds, GPU) and REPLICATIONS M/M/c/k
# replications × 50,000 on device 0 and on all devices, two rounds; the rows must be equal
# (compared after the call: every field but the wall clocks)
multi_gpu() {
  local reps=$1
  $BIN devices | tee "$OUT/devices.txt"
  for round in 1 2; do
    for d in 0 all; do
      /usr/bin/time -f "%e s wall" $BIN sweep sang2019-fig14-15 --seeds 20 --engine gpu --devices $d --format json --out "$OUT/fig14-$d-$round.json" 2> "$OUT/fig14-$d-$round.err"
      /usr/bin/time -f "%e s wall" $BIN run cheng2014-mmck --engine gpu --set run.replications=$reps --devices $d --format json --out "$OUT/mmck-$reps-$d-$round.json" 2> "$OUT/mmck-$reps-$d-$round.err"
      echo "round $round devices $d: fig14 runs $(grep -h '^  "wall_seconds"' "$OUT/fig14-$d-$round.json" | tr -d ' ,') ($(tail -1 "$OUT/fig14-$d-$round.err") with verification); mmck $reps × 50,000 $(grep -m1 -h '"wall_seconds"' "$OUT/mmck-$reps-$d-$round.json" | tr -d ' ,') ($(tail -1 "$OUT/mmck-$reps-$d-$round.err"))"
    done
  done | tee "$OUT/multi-gpu.txt"
}
# torus_variants DIR...: the torus step at d = 0.25 (T = 5000) and its fixed cost (d = 1e-6)
# with the built-in shaders and with each DIR's files replacing theirs (PDES_WGSL_DIR), two
# interleaved rounds, wall µs per step
torus_variants() {
  for round in 1 2; do
    for v in builtin "$@"; do
      n=$(basename "$v")
      for d in 0.25 0.000001; do
        if [ "$d" = 0.25 ]; then T=5000; else T=0.05; fi
        if [ "$v" = builtin ]; then env=(); else env=(PDES_WGSL_DIR="$v"); fi
        # a variant that hangs the device (one did) costs a minute, not the whole call
        env "${env[@]}" timeout 60 $BIN run sang2019-torus --engine gpu --set run.d=$d --set run.end_time=$T --format csv 2>&1 | tail -1 | awk -F, -v d=$d -v n=$n -v r=$round -v T=$T '{printf "round %s %s d=%s T=%s: events=%s steps=%s wall=%s s  %.1f µs/step\n", r, n, d, T, $16, $17, $25, $25 * 1e6 / $17}'
      done
    done
  done
}
# lgd_draws: 10^6 draws of the shipped sample's mixture (awk's generator, seed 2014) into
# /tmp/lgd-1e6.csv, one a line
lgd_draws() {
  awk 'BEGIN { srand(2014); split("0.30 0.20 0.20 0.15 0.15", w, " "); split("0.05 0.25 0.50 0.75 0.95", m, " "); split("0.03 0.06 0.08 0.06 0.03", sd, " ")
    for (i = 0; i < 1000000; i++) { u = rand(); j = 1; c = w[1]; while (u > c && j < 5) { j++; c += w[j] }
      z = sqrt(-2 * log(1 - rand())) * cos(6.283185307179586 * rand()); printf "%.9f\n", m[j] + sd[j] * z } }' > /tmp/lgd-1e6.csv
}
for what in "$@"; do
  case $what in
    phold-seq-ab)  # sequential PHOLD, 777,777 LPs, population 3, T = 20 (issue 32's baseline):
      # carry/pdes-lab-before against $BIN, two interleaved rounds, one host core each
      for round in 1 2; do
        for b in carry/pdes-lab-before "$BIN"; do
          n=$(basename "$b")
          $b run phold --set model.lps=777777 --set model.population=3 --set run.algorithm=sequential --set run.engine=cpu --set run.end_time=20 --format json > "$OUT/phold-seq-$n-$round.json"
          echo "round $round $n: $(grep -hE '"(events|wall_seconds|events_per_second|time_checksum)"' "$OUT/phold-seq-$n-$round.json" | tr -d '\n ')"
        done
      done | tee "$OUT/phold-seq-ab.txt" ;;
    fit-gpu)  # the mixture fit of the shipped sample, k = 1..10, log-likelihood on the GPU
      /usr/bin/time -f "%e s wall" $BIN fit cheng2014-lgd --engine gpu --format json > "$OUT/fit-lgd-gpu.json" 2> "$OUT/fit-lgd-gpu.time" ;;
    fit-rounds)  # the fit in rounds: k = 1..10 of the shipped sample on the GPU, three runs (each a fresh process, so each cold) and on the CPU (all cores) once; then 10^6 draws of the same mixture (awk's generator) on the GPU
      for i in 1 2 3; do
        /usr/bin/time -f "%e s wall" $BIN fit cheng2014-lgd --engine gpu --format json > "$OUT/fit-lgd-gpu-$i.json" 2> "$OUT/fit-lgd-gpu-$i.time"
      done
      /usr/bin/time -f "%e s wall" $BIN fit cheng2014-lgd --engine cpu --format json > "$OUT/fit-lgd-cpu.json" 2> "$OUT/fit-lgd-cpu.time"
      lgd_draws
      /usr/bin/time -f "%e s wall" $BIN fit /tmp/lgd-1e6.csv --engine gpu --format json > "$OUT/fit-1e6-gpu.json" 2> "$OUT/fit-1e6-gpu.time"
      if [ -x carry/pdes-lab-before ]; then  # the fit of the commit before, once, in the same call
        /usr/bin/time -f "%e s wall" carry/pdes-lab-before fit cheng2014-lgd --engine gpu --format json > "$OUT/fit-lgd-gpu-before.json" 2> "$OUT/fit-lgd-gpu-before.time"
      fi
      for f in "$OUT"/fit-*.json; do echo "$(basename "$f"): $(grep -hE '"(engine|rounds|wall_seconds|chosen_components)"' "$f" | tr -d '\n ')"; done | tee "$OUT/fit-rounds.txt" ;;
    fit-device)  # issue 32 item 2: Nelder–Mead on the device against the host's rounds and the CPU, k = 1..10: the shipped sample (3 cold runs each on the GPU), the same repeated 4× (n = 28,204) and 10^6 draws (auto: the rounds above 131,072 distinct)
      for i in 1 2 3; do
        for on in device host; do
          PDES_GPU_PROFILE=1 /usr/bin/time -f "%e s wall" $BIN fit cheng2014-lgd --engine gpu --iterate-on $on --format json > "$OUT/fitd-lgd-$on-$i.json" 2> "$OUT/fitd-lgd-$on-$i.time"
        done
      done
      /usr/bin/time -f "%e s wall" $BIN fit cheng2014-lgd --engine cpu --format json > "$OUT/fitd-lgd-cpu.json" 2> "$OUT/fitd-lgd-cpu.time"
      lgd_draws
      head -28204 /tmp/lgd-1e6.csv > /tmp/lgd-28204.csv
      for on in device host; do
        /usr/bin/time -f "%e s wall" $BIN fit /tmp/lgd-28204.csv --engine gpu --iterate-on $on --format json > "$OUT/fitd-28204-$on.json" 2> "$OUT/fitd-28204-$on.time"
      done
      /usr/bin/time -f "%e s wall" $BIN fit /tmp/lgd-1e6.csv --engine gpu --format json > "$OUT/fitd-1e6-auto.json" 2> "$OUT/fitd-1e6-auto.time"
      for f in "$OUT"/fitd-*.json; do echo "$(basename "$f"): $(grep -hE '"(engine|iterated_on|rounds|wall_seconds|chosen_components)"' "$f" | tr -d '\n ') $(cat "${f%.json}.time" | tail -1)"; done | tee "$OUT/fit-device.txt" ;;
    fit-cpu)  # the CPU fit (f64, every core) of the shipped sample, k = 1..10: $BEFORE (default carry/pdes-lab-before) against $BIN, three interleaved rounds; then $BIN on one thread, and its GPU fit (searches on the device) three times
      before=${BEFORE:-carry/pdes-lab-before}
      for round in 1 2 3; do
        for b in "$before" "$BIN"; do
          n=$(basename "$b")
          /usr/bin/time -f "%e s wall, %U s user, %S s sys" $b fit cheng2014-lgd --engine cpu --format json > "$OUT/fitc-$n-$round.json" 2> "$OUT/fitc-$n-$round.time"
        done
      done
      RAYON_NUM_THREADS=1 /usr/bin/time -f "%e s wall, %U s user, %S s sys" $BIN fit cheng2014-lgd --engine cpu --format json > "$OUT/fitc-one-thread.json" 2> "$OUT/fitc-one-thread.time"
      for i in 1 2 3; do
        /usr/bin/time -f "%e s wall, %U s user, %S s sys" $BIN fit cheng2014-lgd --engine gpu --format json > "$OUT/fitc-gpu-$i.json" 2> "$OUT/fitc-gpu-$i.time"
      done
      for f in "$OUT"/fitc-*.json; do echo "$(basename "$f"): $(grep -hE '"(engine|iterated_on|rounds|wall_seconds|chosen_components)"' "$f" | tr -d '\n ') $(tail -1 "${f%.json}.time")"; done | tee "$OUT/fit-cpu.txt" ;;
    fit-threshold)  # where --iterate-on auto should leave the device for the rounds: k = 1..10 of the first N of 10^6 draws (awk's generator, as fit-device) on the device and in rounds, N in $NS (default 65,536 and 131,072, the threshold), each fit cut at 60 s (N = 262,144 and 524,288 ran past the call's 10 minutes)
      lgd_draws
      for n in ${NS:-65536 131072}; do
        head -$n /tmp/lgd-1e6.csv > /tmp/lgd-$n.csv
        for on in device host; do
          PDES_GPU_PROFILE=1 timeout 60 /usr/bin/time -f "%e s wall" $BIN fit /tmp/lgd-$n.csv --engine gpu --iterate-on $on --format json > "$OUT/fitt-$n-$on.json" 2> "$OUT/fitt-$n-$on.time"
        done
      done
      for f in "$OUT"/fitt-*.json; do echo "$(basename "$f"): $(grep -hE '"(distinct|iterated_on|rounds|wall_seconds|chosen_components)"' "$f" | tr -d '\n ') $(tail -1 "${f%.json}.time")"; done | tee "$OUT/fit-threshold.txt" ;;
    verify)  # every GPU engine against its CPU twin, both reduction variants (pdes-lab verify)
      $BIN verify 2>&1 | tee "$OUT/verify.txt"; [ "${PIPESTATUS[0]}" = 0 ] || exit 1 ;;
    repro)  # issue 9's repro: CPU sequential and GPU window, 1000×777, P = 3, shifted, d = 0.6
      c="--set model.rows=1000 --set model.cols=777 --set model.tokens_per_facility=3 --set model.mean_service=7 --set model.service=shifted --set run.d=0.6 --set run.end_time=60 --set run.warmup=0 --set run.seed=4242"
      for run in "sequential cpu" "window gpu"; do
        read -r alg eng <<< "$run"
        # shellcheck disable=SC2086
        $BIN run $c --algorithm $alg --engine $eng --format json > "$OUT/repro-$alg-$eng.json"
        echo "$alg $eng: $(grep -hE '"(events|utilization|mean_sojourn|causality_errors)"' "$OUT/repro-$alg-$eng.json" | tr -d '\n ')"
      done | tee "$OUT/repro.txt" ;;
    headline)
      /usr/bin/time -v $BIN run sang2019-torus --engine gpu --format json > "$OUT/sang2019-torus.json" 2> "$OUT/sang2019-torus.time"
      cat "$OUT/sang2019-torus.json"; grep -E "Elapsed|Maximum resident" "$OUT/sang2019-torus.time" ;;
    items-unused)
      for n in 2 4 8 16; do
        PDES_GPU_ITEMS=$n $BIN run sang2019-torus --set run.end_time=5000 --format csv | tail -1 | awk -F, -v n=$n '{print "items=" n " events=" $16 " steps=" $17 " wall=" $25 " ev/s=" $26}'
      done 2>&1 | tee "$OUT/items.txt" ;;
    profile)
      $BIN bench --suite headline-short --profile --format json --out "$OUT/headline-short-profile.json" 2>&1 | tee "$OUT/headline-short-profile.log" ;;
    ui)  # frame rate of the real app (egui_kittest + wgpu) while the GPU torus advances
      for side in 16 256 1024 2048; do
        PDES_PERF_SIDE=$side PDES_PERF_FRAMES=300 carry/ui_perf --ignored --nocapture 2>&1 | grep '^ui_perf'
      done | tee "$OUT/ui_perf.txt" ;;
    reductions)  # subgroup vs shared-memory workgroup reductions, per-pass profile
      for r in subgroup portable; do
        echo "reductions=$r"
        PDES_GPU_REDUCTIONS=$r $BIN bench --suite headline-short --profile 2>&1 | grep -E "window|µs"
      done | tee "$OUT/reductions.txt" ;;
    diffusion)  # paper 001's comparison, 50×50 to 2048×2048 (bench --suite diffusion)
      $BIN bench --suite diffusion --format json --out "$OUT/diffusion.json" 2>&1 | tee "$OUT/diffusion.log" ;;
    diffusion-verify)  # CPU and GPU twins on the real device: the same steps, cells within rounding
      for alg in timestepped hybrid; do
        for e in cpu gpu; do
          $BIN run perumalla-diffusion-750 --algorithm $alg --set model.rows=256 --set model.cols=256 --set run.end_time=100 --engine $e --format json > "/tmp/dverify-$alg-$e.json"
        done
        echo "$alg: cpu | gpu"
        paste <(grep -E '"(steps|cell_updates|sim_time|mean_temperature|min_temperature|max_temperature)"' "/tmp/dverify-$alg-cpu.json") \
              <(grep -E '"(steps|cell_updates|sim_time|mean_temperature|min_temperature|max_temperature)"' "/tmp/dverify-$alg-gpu.json")
      done 2>&1 | tee "$OUT/diffusion-verify.txt" ;;
    diffusion-750)  # the paper's grid, the preset as shipped
      for run in "hybrid gpu" "timestepped gpu" "timestepped cpu" "hybrid cpu"; do
        read -r alg eng <<< "$run"
        $BIN run perumalla-diffusion-750 --algorithm $alg --engine $eng --format json > "/tmp/p750-$alg-$eng.json"
        echo "$alg $eng: $(grep -hE '"(steps|wall_seconds|mean_temperature)"' /tmp/p750-$alg-$eng.json | tr -d '\n ')"
      done | tee "$OUT/perumalla-750.txt" ;;
    diffusion-ratio)  # issue 15: GPU rows at 2048² against CPU timestepped, medians of 5
      $BIN bench --suite diffusion-ratio --repeat 5 --format json --out "$OUT/diffusion-ratio.json" 2>&1 | tee "$OUT/diffusion-ratio.log" ;;
    diffusion-ab)  # the GPU rows at 2048² with each bench/experiments/diffusion-ab/*/ kernel (PDES_WGSL_DIR), then the built-in one
      for dir in ${EXPERIMENTS:-$EXP/diffusion-ab}/*/; do
        echo "== $dir"; PDES_WGSL_DIR=$dir $BIN bench --suite diffusion-gpu-2048 --repeat 5 2>&1 | grep -E "gpu|EXPERIMENT"
      done 2>&1 | tee "$OUT/diffusion-ab.txt"
      echo "== built-in" | tee -a "$OUT/diffusion-ab.txt"; $BIN bench --suite diffusion-gpu-2048 --repeat 5 2>&1 | grep gpu | tee -a "$OUT/diffusion-ab.txt" ;;
    diffusion-attribution)  # µs per step with parts of the step removed (bench/experiments/diffusion-attribution/)
      for dir in $EXP/diffusion-attribution/*/; do
        echo "== $dir"; PDES_WGSL_DIR=$dir $BIN bench --suite diffusion-gpu-2048 --repeat 5 2>&1 | grep -E "^2048x2048  |EXPERIMENT" | tail -3
      done 2>&1 | tee "$OUT/diffusion-attribution.txt" ;;
    diffusion-strip)  # the GPU rows at 2048² with other binaries carried (BINARIES, default carry/pdes-lab-strip*: another STRIP), then $BIN
      for b in ${BINARIES:-carry/pdes-lab-strip*} $BIN; do
        echo "== $b"; $b bench --suite diffusion-gpu-2048 --repeat 5 2>&1 | grep -E "^2048x2048  "
      done 2>&1 | tee "$OUT/diffusion-strip.txt" ;;
    diffusion-bench-profile)  # the bench's own GPU rows at 2048², batch by batch
      PDES_GPU_PROFILE=1 $BIN bench --suite diffusion-gpu-2048 2>&1 | tee "$OUT/diffusion-bench-profile.txt" ;;
    diffusion-profile)  # GPU µs per step (timestamps around each batch) of timestepped and hybrid
      for side in 500 2048; do
        for alg in timestepped hybrid; do
          echo "side=$side $alg"
          PDES_GPU_PROFILE=1 $BIN run perumalla-diffusion-750 --algorithm $alg --engine gpu --set model.rows=$side --set model.cols=$side --set run.end_time=50 --format csv 2>&1 | grep batch | tail -3
        done
      done 2>&1 | tee "$OUT/diffusion-profile.txt" ;;
    open)  # the open network: CPU sequential against the GPU engines, 16×16 to 1 M facilities
      $BIN bench --suite open-network --repeat 3 --format json --out "$OUT/open-network.json" 2>&1 | tee "$OUT/open-network.log" ;;
    open-fig3)  # paper 002 Fig. 3 on the GPU: the open network with interval/boundary against TI
      for ti in 0.25 0.5 1 2; do
        $BIN run park-fishwick-open --engine gpu --set run.d=$ti --format json > "/tmp/fig3-$ti.json"
        echo "TI=$ti: $(grep -hE '"(utilization|mean_sojourn|mean_tokens_in_system|wall_seconds|steps)"' /tmp/fig3-$ti.json | tr -d '\n ')"
      done 2>&1 | tee "$OUT/open-fig3.txt" ;;
    sweep)  # issue 11's measure: a 16-point × 5-seed d sweep of the 256² torus, GPU runs in flight 1..8, and the CPU
      c="--vary run.d=0.25:4:16:log --seeds 5 --set model.rows=256 --set model.cols=256"
      for j in 1 2 4; do
        # shellcheck disable=SC2086
        /usr/bin/time -f "gpu jobs=$j: %e s wall" $BIN sweep $c --engine gpu --jobs $j --format csv --out "$OUT/sweep-gpu-j$j.csv" 2>&1 | tail -1
      done 2>&1 | tee "$OUT/sweep.txt"
      # the same 80 runs cut to a few steps each: what engine set-up and readback cost
      # shellcheck disable=SC2086
      /usr/bin/time -f "gpu jobs=1, run.end_time=0.5 (set-up only): %e s wall" $BIN sweep $c --set run.end_time=0.5 --engine gpu --jobs 1 --format csv > /dev/null 2>> "$OUT/sweep.txt"; tail -1 "$OUT/sweep.txt"
      # shellcheck disable=SC2086
      /usr/bin/time -f "cpu jobs=16: %e s wall" $BIN sweep $c --engine cpu --format csv --out "$OUT/sweep-cpu.csv" 2>&1 | tail -1 | tee -a "$OUT/sweep.txt"
      $BIN sweep $c --engine gpu --jobs 4 --plot "$OUT/sweep-256.png" --format table 2>&1 | tail -3 | tee -a "$OUT/sweep.txt" ;;
    mmck)  # paper 003 §4: M/M/c/k replications, CPU (all cores) against the GPU, rows must be equal
      $BIN bench --suite mmck --repeat 3 --format json --out "$OUT/mmck.json" 2>&1 | tee "$OUT/mmck.log"
      $BIN run cheng2014-mmck --engine gpu --format table 2>&1 | tee "$OUT/mmck-paper-gpu.txt" ;;
    mmck-ab)  # issue 32 item 1: paper 003's 7,168 × 50,000 and 8× as many with carry/pdes-lab-before and $BIN (each a fresh process: the cold run a user meets), two interleaved rounds; then 10^6 and 2^20 replications with $BIN
      for round in 1 2; do
        for b in carry/pdes-lab-before "$BIN"; do
          for reps in 7168 57344; do
            $b run cheng2014-mmck --engine gpu --set run.replications=$reps --format json --out "$OUT/mmck-$reps-$(basename "$b")-$round.json" > /dev/null 2>&1
            echo "round $round $(basename "$b") $reps × 50,000: $(grep -m1 -h '"wall_seconds"' "$OUT/mmck-$reps-$(basename "$b")-$round.json" | tr -d ' ,') L=$(grep -m1 -h '"mean_number_in_system"' "$OUT/mmck-$reps-$(basename "$b")-$round.json" | tr -d ' ,')"
          done
        done
      done | tee "$OUT/mmck-ab.txt"
      for reps in 1000000 1048576; do
        timeout 300 $BIN run cheng2014-mmck --engine gpu --set run.replications=$reps --format json --out "$OUT/mmck-$reps.json" > /dev/null 2>&1
        echo "$reps × 50,000: $(grep -m1 -h '"wall_seconds"' "$OUT/mmck-$reps.json" | tr -d ' ,') events $(grep -m1 -h '"events"' "$OUT/mmck-$reps.json" | tr -d ' ,')"
      done | tee -a "$OUT/mmck-ab.txt" ;;
    mmck-binaries)  # issue 32 item 1: every carry/pdes-lab-* binary and $BIN, paper 003's 7,168 and 57,344 replications × 50,000 as `run` gives them (fresh processes), three interleaved rounds; each output less its clocks hashed
      for round in 1 2 3; do
        for reps in 7168 57344; do
          for b in carry/pdes-lab-* "$BIN"; do
            f="$OUT/bin-$(basename "$b")-$reps-$round.json"
            $b run cheng2014-mmck --engine gpu --set run.replications=$reps --format json --out "$f" > /dev/null 2>&1
            echo "round $round $(printf %-18s $(basename "$b")) $reps reps: $(grep -m1 -h '"wall_seconds"' "$f" | tr -d ' ,'), output $(grep -v 'wall_seconds\|per_second' "$f" | md5sum | cut -c1-12)"
          done
        done
      done | tee "$OUT/mmck-binaries.txt" ;;
    mmck-limit)  # issue 32 item 1, eleventh session: carry/pdes-lab-before against $BIN as built, with the dispatches of the loop budget's size (PDES_MMCK_DISPATCH_EVENTS=4681) and with the time limit's test in every event (PDES_MMCK_ALWAYS_LIMITED=1); 7,168 (producers) and 57,344 (own draws) × 50,000, three interleaved rounds; each output less its clocks hashed
      for round in 1 2 3; do
        for reps in 7168 57344; do
          for v in before built small-dispatches always-limited; do
            f="$OUT/limit-$v-$reps-$round.json"
            case $v in
              before) cmd=(carry/pdes-lab-before) ;;
              built) cmd=("$BIN") ;;
              small-dispatches) cmd=(env PDES_MMCK_DISPATCH_EVENTS=4681 "$BIN") ;;
              always-limited) cmd=(env PDES_MMCK_ALWAYS_LIMITED=1 "$BIN") ;;
            esac
            "${cmd[@]}" run cheng2014-mmck --engine gpu --set run.replications=$reps --format json --out "$f" > /dev/null 2>&1
            echo "round $round $(printf %-17s $v) $reps reps: $(grep -m1 -h '"wall_seconds"' "$f" | tr -d ' ,'), output $(grep -v 'wall_seconds\|per_second' "$f" | md5sum | cut -c1-12)"
          done
        done
      done | tee "$OUT/mmck-limit.txt" ;;
    mmck-draws)  # issue 32 item 1, eighth session: the draws made by each replication's thread or by a producer beside it (PDES_MMCK_DRAWS=own|producer32|producer64) at 7,168 … 57,344 replications × 50,000, two rounds: where the producers stop paying (gpu.rs, PRODUCERS_UP_TO); each output less its clocks hashed (every row of a size must be equal)
      for round in 1 2; do
        for reps in 7168 14336 21504 28672 43008 57344; do
          for d in own producer32 producer64; do
            f="$OUT/draws-$d-$reps-$round.json"
            PDES_MMCK_DRAWS=$d $BIN run cheng2014-mmck --engine gpu --set run.replications=$reps --format json --out "$f" > /dev/null 2>&1
            echo "round $round $(printf %-8s $d) $reps reps: $(grep -m1 -h '"wall_seconds"' "$f" | tr -d ' ,'), output $(grep -v 'wall_seconds\|per_second' "$f" | md5sum | cut -c1-12)"
          done
        done
      done | tee "$OUT/mmck-draws.txt" ;;
    mmck-times)  # issue 32 item 1, ninth session: the times in one word or in word pairs (PDES_MMCK_TIMES=ticks forces pairs) with each way of making the draws (PDES_MMCK_DRAWS), 7,168 … 57,344 replications × 50,000, two rounds, then 10^6 both ways; each output less its clocks hashed (every row of a size must be equal)
      for round in 1 2; do
        for reps in 7168 14336 28672 57344; do
          for d in own producer32 producer64; do
            for t in ticks offsets; do
              f="$OUT/times-$t-$d-$reps-$round.json"
              PDES_MMCK_TIMES=$t PDES_MMCK_DRAWS=$d $BIN run cheng2014-mmck --engine gpu --set run.replications=$reps --format json --out "$f" > /dev/null 2>&1
              echo "round $round $(printf %-8s $t) $(printf %-10s $d) $reps reps: $(grep -m1 -h '"wall_seconds"' "$f" | tr -d ' ,'), output $(grep -v 'wall_seconds\|per_second' "$f" | md5sum | cut -c1-12)"
            done
          done
        done
      done | tee "$OUT/mmck-times.txt"
      for t in ticks offsets; do
        f="$OUT/times-$t-1000000.json"
        timeout 300 env PDES_MMCK_TIMES=$t $BIN run cheng2014-mmck --engine gpu --set run.replications=1000000 --format json --out "$f" > /dev/null 2>&1
        echo "$(printf %-8s $t) 1000000 reps: $(grep -m1 -h '"wall_seconds"' "$f" | tr -d ' ,'), output $(grep -v 'wall_seconds\|per_second' "$f" | md5sum | cut -c1-12)"
      done | tee -a "$OUT/mmck-times.txt" ;;
    mmck-large)  # issue 32 item 1: 10^6 and 2^20 replications × 50,000 with $BIN (a fresh process each)
      for reps in 1000000 1048576; do
        timeout 300 $BIN run cheng2014-mmck --engine gpu --set run.replications=$reps --format json --out "$OUT/mmck-$reps.json" > /dev/null 2>&1
        echo "$reps × 50,000: $(grep -m1 -h '"wall_seconds"' "$OUT/mmck-$reps.json" | tr -d ' ,') events $(grep -m1 -h '"events"' "$OUT/mmck-$reps.json" | tr -d ' ,')"
      done | tee "$OUT/mmck-large.txt" ;;
    mmck-checks)  # issue 32 item 1: ns per event of one replication with wgpu's injected shader checks off one kind at a time (PDES_GPU_CHECKS_OFF), 7,168 and 57,344 replications, two rounds
      for round in 1 2; do
        for off in none loops bounds all; do
          for reps in 7168 57344; do
            PDES_GPU_CHECKS_OFF=$off $BIN run cheng2014-mmck --engine gpu --set run.replications=$reps --format csv 2>/dev/null > "$OUT/checks-$off-$reps-$round.csv"
            awk -F, -v r=$round -v n=$off -v reps=$reps 'NR==1{for(i=1;i<=NF;i++)c[$i]=i} NR>1{e=$c["events"]; w=$c["wall_seconds"]} END{printf "round %s checks off: %-8s %6s reps: events %.4g, wall %.3f s, %.0f ns per event of one replication\n", r, n, reps, e, w, w/(e/reps)*1e9}' "$OUT/checks-$off-$reps-$round.csv"
          done
        done
      done | tee "$OUT/mmck-checks.txt" ;;
    mmck-attribution)  # issue 32 item 1: ns per event of one replication with a part of the event removed (bench/experiments/mmck-attribution/, written by its make.py), built-in first, 7,168 and 57,344 replications, two rounds
      for round in 1 2; do
        for v in builtin "$EXP"/mmck-attribution/*/; do
          n=$(basename "$v")
          if [ "$v" = builtin ]; then env=(); else env=(PDES_WGSL_DIR="$v"); fi
          for reps in 7168 57344; do
            env "${env[@]}" $BIN run cheng2014-mmck --engine gpu --set run.replications=$reps --format csv 2>/dev/null > "$OUT/attr-$n-$reps-$round.csv"
            awk -F, -v r=$round -v n=$n -v reps=$reps 'NR==1{for(i=1;i<=NF;i++)c[$i]=i} NR>1{e=$c["events"]; w=$c["wall_seconds"]} END{printf "round %s %-12s %6s reps: events %.4g, wall %.3f s, %.0f ns per event of one replication\n", r, n, reps, e, w, w/(e/reps)*1e9}' "$OUT/attr-$n-$reps-$round.csv"
          done
        done
      done | tee "$OUT/mmck-attribution.txt" ;;
    mmck-exact|mmck-paired|mmck-ladder)  # issue 32 item 1: ns per event of one replication with each exact variant of the shader (bench/experiments/mmck-exact/, mmck-paired/ or mmck-ladder/, written by its make.py), built-in first, 7,168 and 57,344 replications, two rounds; each run's output less its clocks hashed: a variant's must be the built-in's
      for round in 1 2; do
        for v in builtin "$EXP/$what"/*/; do
          n=$(basename "$v")
          if [ "$v" = builtin ]; then env=(); else env=(PDES_WGSL_DIR="$v"); fi
          for reps in 7168 57344; do
            env "${env[@]}" $BIN run cheng2014-mmck --engine gpu --set run.replications=$reps --format json --out "$OUT/exact-$n-$reps-$round.json" > /dev/null 2>&1
            f="$OUT/exact-$n-$reps-$round.json"
            echo "round $round $(printf %-8s $n) $reps reps: $(grep -m1 -h '"wall_seconds"' "$f" | tr -d ' ,'), $(grep -m1 -h '"events"' "$f" | tr -d ' ,'), output $(grep -v 'wall_seconds\|per_second' "$f" | md5sum | cut -c1-12)"
          done
        done
      done | tee "$OUT/$what.txt" ;;
    mixture)  # paper 003 Table 1's shape: fit k = 1..10 at n = 500 … 28,204, CPU (f64, all cores) against GPU (f32)
      $BIN fit cheng2014-lgd --engine gpu --format table 2>&1 | tee "$OUT/fit-lgd-gpu.txt"
      $BIN fit cheng2014-lgd --engine cpu --format json --out "$OUT/fit-lgd-cpu.json"
      $BIN bench --suite mixture --format json --out "$OUT/mixture.json" 2>&1 | tee "$OUT/mixture.log" ;;
    fit-task-terms)  # issue 32 item 2, ninth session: the CPU fit (shipped sample, k = 1..10, every core) with tasks of at least 4,096 (built in), 10,240, 15,360 and 20,480 terms (PDES_FIT_TASK_TERMS: a round of one k = 10 mixture in 14, 7, 5 or 4 tasks), three interleaved rounds; each JSON less its clock hashed (all must be equal)
      for round in 1 2 3; do
        for v in 4096 10240 15360 20480; do
          f="$OUT/fit-terms-$v-$round.json"
          PDES_FIT_TASK_TERMS=$v /usr/bin/time -f "%e s wall, %U s user, %S s sys" $BIN fit cheng2014-lgd --engine cpu --format json > "$f" 2> "$f.time"
          echo "round $round task terms $v: $(tail -1 "$f.time"), output $(grep -v 'seconds' "$f" | md5sum | cut -c1-12)"
        done
      done | tee "$OUT/fit-task-terms.txt" ;;
    fit-threads)  # the CPU fit of the shipped sample (k = 1..10) on 1, 4, 8, 12 and 16 threads: how the host's cores scale (hyperthreads, a VM's vCPUs)
      for t in 1 4 8 12 16; do
        RAYON_NUM_THREADS=$t /usr/bin/time -f "%e s wall, %U s user, %S s sys" $BIN fit cheng2014-lgd --engine cpu --format json > "$OUT/fitn-$t.json" 2> "$OUT/fitn-$t.time"
        echo "$t threads: $(grep -hE '"wall_seconds"' "$OUT/fitn-$t.json" | tr -d '\n ') $(tail -1 "$OUT/fitn-$t.time")"
      done | tee "$OUT/fit-threads.txt" ;;
    mixture-round-ab)  # µs per fit round against its batch size, carry/pdes-lab-before then $BIN, twice
      for round in 1 2; do
        for b in carry/pdes-lab-before $BIN; do
          echo "== round $round $b"
          $b bench --suite mixture-round --format json --out "$OUT/mixture-round-$round-$(basename "$b").json" 2>&1
        done
      done | tee "$OUT/mixture-round-ab.txt" ;;
    multi-gpu)  # issue 32, item 5, on a host of several GPUs: the Fig. 14 sweep and 10^6 M/M/c/k replications (4.8 s on one H100 since the replications run on registers; 362 s before)
      multi_gpu 1000000 ;;
    multi-gpu-mid)  # the same with 229,376 replications (32 × paper 003's 7,168)
      multi_gpu 229376 ;;
    mixture-suite)  # the bench suite alone (fit-rounds has the shipped sample's fits)
      $BIN bench --suite mixture --format json --out "$OUT/mixture.json" 2>&1 | tee "$OUT/mixture.log" ;;
    devs)  # paper 004: sequential PDEVS, flattened CPU (all cores) and flattened GPU, both models at the paper's sizes
      $BIN bench --suite devs --repeat 5 --format json --out "$OUT/devs.json" 2>&1 | tee "$OUT/devs.log" ;;
    devs-work)  # where the GPU starts to win: the benchmark's extra work per transition at 16², 64², 256²
      $BIN bench --suite devs-work --repeat 5 --format json --out "$OUT/devs-work.json" 2>&1 | tee "$OUT/devs-work.log" ;;
    devs-attribution)  # issue 32 item 3: SIR's GPU µs per step (timestamps, the last batch of T = 1000) with a part of the step removed (bench/experiments/devs-attribution/, written by its make.py), built-in first, 320² and 1000², two rounds
      for round in 1 2; do
        for v in builtin "$EXP"/devs-attribution/*/; do
          n=$(basename "$v")
          if [ "$v" = builtin ]; then env=(); else env=(PDES_WGSL_DIR="$v"); fi
          for side in 320 1000; do
            echo "round $round $n $side²: $(env "${env[@]}" PDES_GPU_PROFILE=1 timeout 60 $BIN run trabes-sir --set model.rows=$side --set model.cols=$side --set run.end_time=1000 --engine gpu --format csv 2>&1 | grep batch | tail -1)"
          done
        done
      done 2>&1 | tee "$OUT/devs-attribution.txt" ;;
    phold-attribution)  # issue 32 item 3: PHOLD's GPU µs per step (timestamps, the last batch of the peers' configuration to T = 1000) with a part of an event made nearly free (bench/experiments/phold-attribution/, written by its make.py), built-in first, two rounds; events and steps of each run beside it
      for round in 1 2; do
        for v in builtin "$EXP"/phold-attribution/*/; do
          n=$(basename "$v")
          if [ "$v" = builtin ]; then env=(); else env=(PDES_WGSL_DIR="$v"); fi
          env "${env[@]}" PDES_GPU_PROFILE=1 timeout 60 $BIN run phold --set run.end_time=1000 --engine gpu --format csv > /tmp/pa.csv 2> /tmp/pa.err
          echo "round $round $n: $(grep batch /tmp/pa.err | tail -1) | $(awk -F, 'NR==1{for(i=1;i<=NF;i++)c[$i]=i} NR>1{printf "events %s steps %s wall %s s", $c["events"], $c["steps"], $c["wall_seconds"]}' /tmp/pa.csv)"
        done
      done 2>&1 | tee "$OUT/phold-attribution.txt" ;;
    devs-profile)  # GPU µs per step from timestamps (one batch of 1000 steps) at the peer's 320² and at 1000²
      for side in 320 1000; do
        for kind in sir benchmark; do
          echo "$kind $side"
          for rep in 1 2 3; do
            PDES_GPU_PROFILE=1 $BIN run trabes-$kind --set model.rows=$side --set model.cols=$side --set run.end_time=1000 --engine gpu --format csv 2>&1 | grep batch | tail -1
          done
        done
      done 2>&1 | tee "$OUT/devs-profile.txt" ;;
    phold)  # issue 15: PHOLD at 2^20 LPs (the peers' configuration and the issue's grid), window on the GPU
      $BIN bench --suite phold --repeat 5 --format json --out "$OUT/phold.json" 2>&1 | tee "$OUT/phold.log" ;;
    phold-profile)  # GPU µs per step from timestamps, the peers' configuration
      for rep in 1 2 3; do
        PDES_GPU_PROFILE=1 $BIN run phold --set run.end_time=20 --format csv 2>&1 | grep batch | tail -2
      done 2>&1 | tee "$OUT/phold-profile.txt" ;;
    baselines)  # issue 15: CPU sequential torus on one core of the host, 256² and 1024², three runs each
      for side_t in "256 2000" "1024 200"; do
        read -r side t <<< "$side_t"
        for rep in 1 2 3; do
          $BIN run teaching-16x16 --algorithm sequential --set model.rows=$side --set model.cols=$side --set run.end_time=$t --set run.warmup=0 --format csv | tail -1 | awk -F, -v s=$side '{print s "² events=" $16 " wall=" $25 " ev/s=" $26}'
        done
      done 2>&1 | tee "$OUT/baselines.txt" ;;
    sequential-parts)  # issue 15: the sequential torus on one core of the host taken apart (queue, state, draws, each replayed alone), medians of 3
      $BIN bench --suite sequential-parts --repeat 3 --format json --out "$OUT/sequential-parts.json" 2>&1 | tee "$OUT/sequential-parts.log" ;;
    baselines-ab)  # the sequential torus of carry/pdes-lab-before and of $BIN, interleaved, five runs each
      for side_t in "256 2000" "1024 200"; do
        read -r side t <<< "$side_t"
        for rep in 1 2 3 4 5; do
          for b in carry/pdes-lab-before $BIN; do
            $b run teaching-16x16 --algorithm sequential --set model.rows=$side --set model.cols=$side --set run.end_time=$t --set run.warmup=0 --format csv | tail -1 | awk -F, -v s=$side -v b=$b '{print b " " s "² events=" $16 " wall=" $25 " ev/s=" $26}'
          done
        done
      done 2>&1 | tee "$OUT/baselines-ab.txt" ;;
    floor)  # issue 15: µs per empty / dependent dispatch in one pass, GB/s of a copy, a stream, random sectors, chains of dependent passes at step sizes
      $BIN bench --suite floor --repeat 5 --format json --out "$OUT/floor.json" 2>&1 | tee "$OUT/floor.txt" ;;
    fixed)  # issue 15: the fixed cost of a torus step, measured: d = 1e-6 leaves one event per step
      for side in 2048 1024; do
        $BIN run sang2019-torus --engine gpu --set model.rows=$side --set model.cols=$side --set run.d=0.000001 --set run.end_time=0.05 --format csv | tail -1 | awk -F, -v s=$side '{printf "%s² d=1e-6 T=0.05: events=%s steps=%s wall=%s s  %.1f µs/step\n", s, $16, $17, $25, $25 * 1e6 / $17}'
      done 2>&1 | tee "$OUT/fixed.txt" ;;
    torus-ab)  # the torus step at d = 0.25 and 1 (T = 5000) and its fixed cost, each binary of BINARIES and $BIN interleaved, three rounds
      torus_ab ${BINARIES:-} $BIN 2>&1 | tee "$OUT/torus-ab.txt" ;;
    checks-ab)  # torus-ab with wgpu's injected shader checks turned off one kind at a time (PDES_GPU_CHECKS_OFF, crates/pdes-gpu/src/kit.rs), built-in last
      mkdir -p /tmp/checks; variants=()
      for v in loops div bounds zero all; do
        printf '#!/bin/sh\nPDES_GPU_CHECKS_OFF=%s exec %s "$@"\n' $v "$PWD/$BIN" > /tmp/checks/off-$v; chmod +x /tmp/checks/off-$v
        variants+=(/tmp/checks/off-$v)
      done
      torus_ab "${variants[@]}" $BIN 2>&1 | tee "$OUT/checks-ab.txt" ;;
    torus-occupancy)  # the torus step with shared memory padded so that fewer workgroups of one pass fit per multiprocessor (bench/experiments/torus-occupancy/, written by its make.py; VARIANTS = a subset of its folders), built-in first, two rounds
      torus_variants ${VARIANTS:-$EXP/torus-occupancy/*/} 2>&1 | tee "$OUT/torus-occupancy.txt" ;;
    torus-sizes)  # the torus step at d = 0.25 (T = 5000) and its fixed cost (d = 1e-6) at 512², 1024², 2048²: does a step's time follow its work (throughput) or not (latency)? Two rounds
      for round in 1 2; do
        for side in 512 1024 2048; do
          for d in 0.25 0.000001; do
            if [ "$d" = 0.25 ]; then T=5000; else T=0.05; fi
            $BIN run sang2019-torus --engine gpu --set model.rows=$side --set model.cols=$side --set run.d=$d --set run.end_time=$T --format csv | tail -1 | awk -F, -v d=$d -v s=$side -v r=$round -v T=$T '{printf "round %s %s² d=%s T=%s: events=%s steps=%s wall=%s s  %.1f µs/step  %.0f events/step\n", r, s, d, T, $16, $17, $25, $25 * 1e6 / $17, $16 / $17}'
          done
        done
      done 2>&1 | tee "$OUT/torus-sizes.txt" ;;
    torus-addition)  # the torus step with one part of the scan pass done twice (bench/experiments/torus-addition/, written by its make.py; VARIANTS = a subset of its folders; each variant still exact: verify --quick runs with it), built-in first, two rounds
      for v in ${VARIANTS:-$EXP/torus-addition/*/}; do echo "== $(basename "$v") verify --quick: $(PDES_WGSL_DIR="$v" $BIN verify --quick 2>&1 | tail -1)"; done 2>&1 | tee "$OUT/torus-addition.txt"
      torus_variants ${VARIANTS:-$EXP/torus-addition/*/} 2>&1 | tee -a "$OUT/torus-addition.txt" ;;
    open-ab)  # the open network's GPU window run at 1 M facilities (the open-network suite's largest case), each binary of BINARIES and $BIN interleaved, three rounds (CSV columns: events 16, steps 17, wall 29 since the warm-up column)
      c="--set model.lines=16384 --set model.servers_per_line=64 --set model.arrival_rate=409.6 --set run.end_time=300 --set model.service=shifted --algorithm window --engine gpu"
      for round in 1 2 3; do
        for b in ${BINARIES:-} $BIN; do
          # shellcheck disable=SC2086
          $b run park-fishwick-open $c --format csv | tail -1 | awk -F, -v b=$b -v r=$round '{printf "round %s %s 1M open window T=300: events=%s steps=%s wall=%s s  %.1f µs/step\n", r, b, $16, $17, $29, $29 * 1e6 / $17}'
        done
      done 2>&1 | tee "$OUT/open-ab.txt" ;;
    engines-ab)  # issue 34: the engines whose batch loops moved to the deferred-capable loops (PHOLD, SIR, diffusion hybrid at 2048², M/M/c/k), carry/pdes-lab-before and $BIN interleaved, fresh processes (the run a user meets), three rounds
      for round in 1 2 3; do
        for b in carry/pdes-lab-before "$BIN"; do
          for w in "phold --set run.end_time=20" "trabes-sir" "perumalla-diffusion-750 --set model.rows=2048 --set model.cols=2048 --set run.algorithm=hybrid --set run.end_time=50" "cheng2014-mmck"; do
            # shellcheck disable=SC2086
            $b run $w --engine gpu --format json --out /tmp/ab.json > /dev/null 2>&1
            echo "round $round $(basename "$b") ${w%% *}: $(grep -m1 -h '"wall_seconds"' /tmp/ab.json | tr -d ' ,') $(grep -m1 -hE '"(events|cell_updates|customers)"' /tmp/ab.json | tr -d ' ,')"
          done
        done
      done 2>&1 | tee "$OUT/engines-ab.txt" ;;
    item3-ab)  # issue 32 item 3: SIR 320² × 1000 and PHOLD's peers' configuration (T = 1000, 10,000 steps) as `run` gives them (fresh processes: the run a user meets), $BEFORE (carry/pdes-lab-before unless set), $MID (if set) and $BIN interleaved, three rounds; then each binary's GPU µs per step from timestamps
      for round in 1 2 3; do
        for b in "${BEFORE:-carry/pdes-lab-before}" ${MID:-} "$BIN"; do
          for w in "trabes-sir --set model.rows=320 --set model.cols=320" "phold --set run.end_time=1000"; do
            # shellcheck disable=SC2086
            /usr/bin/time -f "%e" -o /tmp/ab.time $b run $w --engine gpu --format json --out /tmp/ab.json > /dev/null 2>&1
            echo "round $round $(basename "$b") ${w%% *}: $(grep -m1 -h '"wall_seconds"' /tmp/ab.json | tr -d ' ,') process $(cat /tmp/ab.time) s $(grep -m1 -hE '"(events|transitions|steps)"' /tmp/ab.json | tr -d ' ,')"
          done
        done
      done 2>&1 | tee "$OUT/item3-ab.txt"
      for b in "${BEFORE:-carry/pdes-lab-before}" ${MID:-} "$BIN"; do
        for rep in 1 2; do
          echo "$(basename "$b") sir 320, every batch of a fresh process: $(PDES_GPU_PROFILE=1 $b run trabes-sir --set model.rows=320 --set model.cols=320 --engine gpu --format csv 2>&1 | grep batch | tr '\n' ' ')"
          echo "$(basename "$b") phold T=1000, first and last batch: $(PDES_GPU_PROFILE=1 $b run phold --set run.end_time=1000 --format csv 2>&1 | grep batch | sed -n '1p;$p' | tr '\n' ' ')"
        done
      done 2>&1 | tee "$OUT/item3-profile.txt" ;;
    cold)  # issue 32 item 3: where a fresh `run` process's time goes (set-up lines, first batch, the run's wall, the process's wall), with the first readback waited for beside the set-up and not (PDES_GPU_EARLY_READBACK=0), four rounds
      for round in 1 2 3 4; do
        for early in 1 0; do
        for w in "trabes-sir --set model.rows=320 --set model.cols=320" "phold --set run.end_time=1000"; do
          # shellcheck disable=SC2086
          PDES_GPU_EARLY_READBACK=$early PDES_GPU_PROFILE=1 /usr/bin/time -f "process %e s" $BIN run $w --engine gpu --format json --out /tmp/cold.json > /tmp/cold.err 2>&1
          echo "round $round early=$early ${w%% *}: $(grep -m1 -h '"wall_seconds"' /tmp/cold.json | tr -d ' ,') | $(grep -E '^set-up|^process' /tmp/cold.err | tr '\n' '|') batches $(grep batch /tmp/cold.err | tr '\n' '|')"
        done
        done
      done 2>&1 | tee "$OUT/cold.txt" ;;
    headline-d)  # the headline at every d of the suite, one run each (the suite repeats them)
      for d in 0.25 0.5 1 2; do
        $BIN run sang2019-torus --engine gpu --set run.d=$d --format csv | tail -1 | awk -F, -v d=$d '{printf "d=%s events=%s steps=%s wall=%s s  %.1f µs/step\n", d, $16, $17, $25, $25 * 1e6 / $17}'
      done 2>&1 | tee "$OUT/headline-d.txt" ;;
    blocked)  # the window algorithm with temporal blocking against the stepped engine: 1024², the headline's four d
      $BIN bench --suite blocked --repeat 3 --format json --out "$OUT/blocked.json" 2>&1 | tee "$OUT/blocked.log" ;;
    blocked-halo)  # the blocked engine with every halo at the headline's configuration, T = 5000
      $BIN bench --suite blocked-halo --repeat 3 --format json --out "$OUT/blocked-halo.json" 2>&1 | tee "$OUT/blocked-halo.log" ;;
    blocked-attribution)  # per-pass GPU µs of the blocked engine, built in and each bench/experiments/blocked-attribution/*/
      PDES_GPU_PROFILE=1 $BIN bench --suite blocked-h2 --repeat 1 > "$OUT/blocked-h2-builtin.log" 2>&1
      for v in ${EXPERIMENTS:-$EXP/blocked-attribution}/*/; do
        n=$(basename "$v")
        PDES_WGSL_DIR="$v" PDES_GPU_PROFILE=1 $BIN bench --suite blocked-h2 --repeat 1 > "$OUT/blocked-h2-$n.log" 2>&1
      done
      for f in "$OUT"/blocked-h2-*.log; do echo "== $f"; grep -E "gpu|blocked batch" "$f" | awk '/gpu/{print; c=0; next} c<1{print; c++}'; done ;;
    suite)
      $BIN bench --suite torus --format json --out "$OUT/torus.json" 2>&1 | tee "$OUT/torus.log" ;;
  esac
done
