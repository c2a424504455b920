# DRAFT for session 24 (written at the end of session 23, not run): re-tune with training shapes in
# the regime the `tune` set lacks (BT 256 needs a split to fill one wave where BT 128 fills it
# unsplit: M = 256-1024, N <= ~3600), every timing written (tune.json) for docs/notes/dispatch-refit.py.
# None of these shapes is in a held-out set (glm5-tp8, seed000, decode, moe, run 61's eight). The
# scoring call that follows should add FRESH held-out shapes in the same regime, chosen before any
# timing is seen (e.g. 768x1792x5120, 1024x2816x7168, 512x2304x10240), besides glm5-tp8 and run 61's.
# Predictions: to be written before the run (expected ~500 s: run 109 took ~450 s for 45 shapes).
RUN=r114 . docs/notes/device-lib.sh
bld build-main 16 "tetra_cli"
wait; echo "build: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
EXTRA=256x1536x8192,512x1536x8192,1024x1536x8192,512x3584x4096,1024x3584x4096,768x2048x12288
l=$(( $(left) - 6 ))
step tune $l build-main/tetra tune --set tune --shape $EXTRA --holdout-shape none --paired-rounds 0 \
  --out $R/results/dispatch-table.txt --json $R/results/tune.json
grep -E "wrote|score|verdict" $R/logs/tune.log | cut -c1-220
echo "total $(el) s"; snap; rm -rf $OUT/$RUNNAME
