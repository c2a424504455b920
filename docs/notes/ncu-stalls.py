import csv, sys, collections
f = sys.argv[1]; top = int(sys.argv[2]) if len(sys.argv) > 2 else 25
lines = open(f).read().splitlines()
i = next(k for k, l in enumerate(lines) if l.startswith('"Address"'))
rows = list(csv.reader(lines[i:]))
h = rows[0]; data = rows[1:]
ix = {n: h.index(n) for n in h}
def num(r, n):
    try: return float(r[ix[n]].replace(',', ''))
    except: return 0.0
tot = sum(num(r, "Warp Stall Sampling (All Samples)") for r in data)
stalls = [n for n in h if n.startswith("stall_") and "Not Issued" not in n]
agg = collections.Counter()
for r in data:
    for s in stalls: agg[s] += num(r, s)
print("total samples", tot, "instructions", len(data))
for s, v in agg.most_common(12): print(f"  {s:24s} {v:8.0f} {100*v/tot:5.1f}%")
# per opcode class
op = collections.Counter(); opi = collections.Counter()
for r in data:
    o = r[ix["Source"]].split()[0] if r[ix["Source"]].split() else "?"
    if o.startswith("@"): o = r[ix["Source"]].split()[1]
    o = o.split(".")[0]
    op[o] += num(r, "Warp Stall Sampling (All Samples)"); opi[o] += num(r, "Instructions Executed")
print("by opcode (samples%, instr executed)")
for o, v in op.most_common(15): print(f"  {o:10s} {100*v/tot:5.1f}%  {opi[o]:.0f}")
print("top instructions")
data.sort(key=lambda r: -num(r, "Warp Stall Sampling (All Samples)"))
for r in data[:top]:
    s = sorted(((num(r, n), n) for n in stalls), reverse=True)[:3]
    print(f"  {r[ix['Address']]:>6s} {100*num(r,'Warp Stall Sampling (All Samples)')/tot:5.1f}% {r[ix['Source']][:60]:60s} " + " ".join(f"{n[6:]}={v:.0f}" for v, n in s))
