# v7.2 (TETRA_GEMM_V7_PREP): host-side check of prep_row's in-place layout against
# dequant_frag's gather (PRMT semantics emulated), and of the bank patterns claimed in
# src/cuda/gemm_sm90.cu ("v7.2: prep warps"). Run: python3 docs/notes/v7.2-prep-layout-check.py
import random
def prmt(a,b,sel):
    x=[(a>>(8*i))&255 for i in range(4)]+[(b>>(8*i))&255 for i in range(4)]
    r=0
    for i in range(4):
        n=(sel>>(4*i))&15
        v=x[n&7]
        if n&8: v=255 if v&128 else 0
        r|=v<<(8*i)
    return r
def words(row,off,n=4): return [int.from_bytes(bytes(row[off+4*k:off+4*k+4]),'little') for k in range(n)]
ok=0
for trial in range(2000):
    stage=bytearray(random.getrandbits(8) for _ in range(4096))
    orig=bytes(stage)
    # prep: every row r, f=(r>>2)&1
    for r in range(128):
        f=(r>>2)&1
        raw=r*32+16*f
        A=words(stage,raw); B=words(stage,raw^16)
        sel_lo=0x1504 if f else 0x5140; sel_hi=0x3726 if f else 0x7362
        V=[prmt(A[j],B[j],sel_lo) for j in range(4)]; W=[prmt(A[j],B[j],sel_hi) for j in range(4)]
        o=[]
        for X in (V,W):
            o.append([prmt(X[0],X[1],0x5410),prmt(X[2],X[3],0x5410),prmt(X[0],X[1],0x7632),prmt(X[2],X[3],0x7632)])
        for k in range(4):
            stage[raw+4*k:raw+4*k+4]=o[0][k].to_bytes(4,'little')
            stage[(raw^16)+4*k:(raw^16)+4*k+4]=o[1][k].to_bytes(4,'little')
    # consumer check
    for wg in range(2):
      for warp in range(4):
        for lane in range(32):
          g=lane//4; tq=lane%4; r=64*wg+16*warp+g
          for h in range(2):
            rr=r+8*h
            # original gather
            lo=words(orig,rr*32); hi=words(orig,rr*32+16)
            sel=tq|((tq+4)<<4)
            gw=[prmt(prmt(lo[0],lo[1],sel),prmt(lo[2],lo[3],sel),0x5410), prmt(prmt(hi[0],hi[1],sel),prmt(hi[2],hi[3],sel),0x5410)]
            praw=r*32+8*(tq^(2*((r>>2)&1)))+256*h
            got=words(stage,praw,2)
            # consumer: byte b of prepared word x holds byte tq of row word wi = 2x + b//2 + 4(b%2)
            for wi in range(8):
                x=(wi>>1)&1; b=2*(wi&1)+(wi>>2)
                assert 2*x+b//2+4*(b%2)==wi
                want=(lo+hi)[wi]>>(8*tq)&255
                assert (got[x]>>(8*b))&255==want,(r,h,tq,wi)
            # and the old gather is the same bytes
            for wi in range(8):
                assert (gw[wi//4]>>(8*(wi%4)))&255==(lo+hi)[wi]>>(8*tq)&255
    ok+=1
    if trial>=50: break
print("ok",ok)
# bank check: consumer LDS64 phases (16 lanes), prep LDS128 phases (8 lanes)
for base in range(0,128,16):
  for ph in range(2):
    addrs=[]
    for lane in range(16*ph,16*ph+16):
        g=lane//4; tq=lane%4; r=base+g
        addrs.append(r*32+8*(tq^(2*((r>>2)&1))))
    banks=set((a%128)//8 for a in addrs); assert len(banks)==16, banks
for bulk in (0,1):
  for pw in range(4):
    rows=[(32*(L//8)+8*pw+L%8) if bulk else 32*pw+L for L in range(32)]
    for ph in range(4):
      for second in (0,1):
        offs=[(r*32+16*((r>>2)&1))^(16*second) for r in rows[8*ph:8*ph+8]]
        assert len(set((o%128)//16 for o in offs))==8
      sp=[16*r for r in rows[8*ph:8*ph+8]]; assert len(set((o%128)//16 for o in sp))==8
    sc=[(16*(r&31)+4*(r>>5)) if bulk else 4*r for r in rows]
    print("bulk",bulk,"pw",pw,"scale lds32 distinct banks",len(set((o//4)%32 for o in sc)))
  assert sorted(r for pw in range(4) for r in [((32*(L//8)+8*pw+L%8) if bulk else 32*pw+L) for L in range(32)])==list(range(128))
print("banks ok")
