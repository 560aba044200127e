"""Compare the Success@20 tables of two `mailsearch-bench eval` outputs (e.g. float32 against int8 kernels,
same sets): how many (set, kind, mode) figures are identical, the worst and best change, and every change
of 0.005 or more. Usage: eval_compare.py BEFORE.txt AFTER.txt [MODES] (MODES: "semantic|hybrid" by default,
or "semantic, no floor", "keyword")."""
import re,sys
def parse(path):
    out={}; cur=None
    for line in open(path):
        m=re.match(r'== (\S+)',line)
        if m: cur=m.group(1); continue
        c=[x.strip() for x in line.strip().strip('|').split('|')]
        if cur and len(c)==9 and re.match(r'^[0-9.]+$',c[3]) and c[2] in('semantic','hybrid','keyword','semantic, no floor'):
            out[(cur,c[0],c[2])]=(float(c[3]),int(c[1]))
    return out
MODES=sys.argv[3].split('|') if len(sys.argv)>3 else ['semantic','hybrid']
a=parse(sys.argv[1]); b=parse(sys.argv[2])
diffs=[]; same=0; n=0
for k in a:
    if k not in b or k[2] not in MODES: continue
    if k[1] in ('overall','from (all)'): continue
    n+=1; d=b[k][0]-a[k][0]
    if abs(d)<1e-9: same+=1
    diffs.append((d,k,a[k],b[k]))
diffs.sort()
print(f'{n} semantic/hybrid figures, {same} identical; worst {diffs[0][0]:+.3f} best {diffs[-1][0]:+.3f}')
for d,k,x,y in diffs:
    if abs(d)>=0.005: print(f'{d:+.3f} {k} {x[0]:.3f}->{y[0]:.3f} n={x[1]}')
over=[(d,k) for d,k,x,y in diffs if abs(d)>0.01+1e-9]
print('outside 0.01:',len(over))
