# Session 28, call 3 (run 137; written after run 136, before this run). Main now ships
# data/dispatch/h200.txt (exact: 10 standard and 12 fragment-ordered entries on `tune` shapes,
# none of them a test's or a benchmarked set's shape), so AUTO on the H200 loads it.
# 1. The whole ctest on this build, four at a time (gpu_bench tests run alone: RUN_SERIAL).
#    Prediction: 40 of 40 pass (gpu_dispatch_table passed alone in runs 135-136).
# 2. Every GPU test under compute-sanitizer memcheck (docs/notes/san-sweep.py, TETRA_TEST_QUICK=1,
#    six at a time). Prediction: 21 of 21 clean.
# 3. In the time left: one paired pass of the dispatcher over the 34 held-out shapes (runs 121 /
#    124 / 129 / 134: glm5-tp8 + 24) with the shipped table as TABLE and AUTO (the same table:
#    none of the 34 is in it, so both are the rules); --samples 2, 2 rounds as run 129.
#    Prediction: 30/34 within 5% of the best configuration (runs 129 + 134), 31/34 within 2% of
#    the best fixed configuration.
RUN=r137 BUDGET=545 . docs/notes/device-lib.sh
bld build-main 16 "all"
wait; echo "build: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
step ctest 300 ctest --test-dir build-main --output-on-failure -j4
grep -E "tests passed|Failed|\*\*\*|Passed|Skipped" $R/logs/ctest.log | cut -c1-100 | tail -45
l=$(( $(left) - 200 )); [ $l -gt 120 ] && l=120
python3 docs/notes/san-sweep.py build-main $R/logs $l --jobs 6 > $R/logs/san-sweep.log 2>&1
cat $R/logs/san-sweep.log | tail -25; snap
HO=256x14336x4096,256x4096x14336,256x28672x8192,512x14336x4096,512x4096x14336,512x28672x8192,1024x14336x4096,768x4096x4096
HO=$HO,1024x4096x4096,2048x14336x4096,4096x4096x4096,4096x4096x14336
HO=$HO,100x768x6144,112x7168x2048,384x4096x4096,768x1792x5120,1024x2816x7168,512x2304x10240
HO=$HO,768x2048x6144,960x2048x7168,832x1536x5120,1024x1792x6144,768x2304x8192,1152x2048x4096
l=$(( $(left) - 5 ))
step score $l build-main/tetra tune --table data/dispatch/h200.txt --holdout-set glm5-tp8 --holdout-shape $HO \
  --samples 2 --paired-rounds 2 --json $R/results/tune-holdout34.json
grep -E "held-out score|verdict" $R/logs/score.log | cut -c1-220
grep -E "AUTO x1\.(0[5-9]|[1-9])" $R/logs/score.log | cut -c1-200
echo "total $(el) s"; snap; rm -rf $OUT/$RUNNAME
