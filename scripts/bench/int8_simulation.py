"""The all-MiniLM-L6-v2 encoder in numpy with the int8/int16 kernels' roundings (weights per output and
group of 64 inputs, activations per row and group), over the 298 reference texts: min / mean / p1 cosine
to sentence-transformers for a choice of matrices on int8 (7-bit weights, u8 activations), 13-bit
integers or float. How docs/benchmarks.md chose the query/key/value projections for 13 bits.
Run: python3 scripts/bench/int8_simulation.py [MODEL_DIR] (numpy, scipy; ~45 s a configuration)."""
import json, numpy as np, os, struct, sys, math
HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = sys.argv[1] if len(sys.argv) > 1 else os.path.expanduser('~/.cache/mailsearch/models/all-MiniLM-L6-v2')
REFERENCE = os.path.join(HERE, '..', '..', '..', 'shared', 'reference')
P = os.path.join(MODEL, 'model.safetensors')
def load(p):
    b=open(p,'rb').read(); n=struct.unpack('<Q',b[:8])[0]; h=json.loads(b[8:8+n]); out={}
    for k,v in h.items():
        if k=='__metadata__': continue
        s,e=v['data_offsets']; dt={'F32':np.float32,'F16':np.float16,'I64':np.int64}[v['dtype']]
        out[k.replace('bert.','')]=np.frombuffer(b[8+n+s:8+n+e],dtype=dt).reshape(v['shape']).astype(np.float32)
    return out
W=load(P)
toks=[json.loads(l) for l in open(os.path.join(REFERENCE, 'tokens.jsonl'))]
refs=[np.array(json.loads(l)['embedding'],dtype=np.float32) for l in open(os.path.join(REFERENCE, 'embeddings.jsonl'))]
ids=[]
for t in toks:
    i=t['ids']
    if len(i)>256: i=i[:255]+[102]
    ids.append(np.array(i))
def ln(x,g,b):
    m=x.mean(-1,keepdims=True); v=((x-m)**2).mean(-1,keepdims=True); return (x-m)/np.sqrt(v+1e-12)*g+b
from scipy.special import erf as verf
def gelu(x): return 0.5*x*(1+verf(x/np.sqrt(2)))
def qw(w,bits=63,group=64):
    n,k=w.shape; w2=w.reshape(n,k//group,group); s=np.abs(w2).max(-1,keepdims=True)/bits; s[s==0]=1
    return (np.clip(np.round(w2/s),-bits,bits)*s).reshape(n,k)
def qa(x,levels=255,group=64):
    r,k=x.shape; x2=x.reshape(r,k//group,group); lo=np.minimum(x2.min(-1,keepdims=True),0); hi=np.maximum(x2.max(-1,keepdims=True),0)
    st=(hi-lo)/levels; st[st==0]=1; z=np.round(-lo/st)
    return ((np.clip(np.round(x2/st)+z,0,levels)-z)*st).reshape(r,k)
def make_lin(cfg):
    # cfg: dict name->(wbits, alevels) or None for float
    cache={}
    def lin(name,x,w,b):
        c=cfg.get(name.split('.')[0])
        if c is None: return x@w.T+b
        key=(name,c[0])
        if key not in cache: cache[key]=qw(w,c[0]) if c[0] else w
        xa=qa(x,c[1]) if c[1] else x
        return xa@cache[key].T+b
    return lin
def encode(i,lin):
    L=len(i); x=W['embeddings.word_embeddings.weight'][i]+W['embeddings.position_embeddings.weight'][:L]+W['embeddings.token_type_embeddings.weight'][0]
    x=ln(x,W['embeddings.LayerNorm.weight'],W['embeddings.LayerNorm.bias'])
    for l in range(6):
        p=f'encoder.layer.{l}.'
        a=p+'attention.self.'
        wq=np.concatenate([W[a+'query.weight'],W[a+'key.weight'],W[a+'value.weight']]); bq=np.concatenate([W[a+'query.bias'],W[a+'key.bias'],W[a+'value.bias']])
        qkv=lin(f'qkv.{l}',x,wq,bq); q,k,v=qkv[:,:384],qkv[:,384:768],qkv[:,768:]
        q=q.reshape(L,12,32).transpose(1,0,2); k=k.reshape(L,12,32).transpose(1,0,2); v=v.reshape(L,12,32).transpose(1,0,2)
        s=q@k.transpose(0,2,1)/math.sqrt(32); s=np.exp(s-s.max(-1,keepdims=True)); s/=s.sum(-1,keepdims=True)
        ctx=(s@v).transpose(1,0,2).reshape(L,384)
        o=lin(f'attn.{l}',ctx,W[p+'attention.output.dense.weight'],W[p+'attention.output.dense.bias'])
        x=ln(o+x,W[p+'attention.output.LayerNorm.weight'],W[p+'attention.output.LayerNorm.bias'])
        h=gelu(lin(f'ffn1.{l}',x,W[p+'intermediate.dense.weight'],W[p+'intermediate.dense.bias']))
        o=lin(f'ffn2.{l}',h,W[p+'output.dense.weight'],W[p+'output.dense.bias'])
        x=ln(o+x,W[p+'output.LayerNorm.weight'],W[p+'output.LayerNorm.bias'])
    e=x.mean(0); return e/np.linalg.norm(e)
def run(cfg,label):
    lin=make_lin(cfg); c=np.array([float(encode(i,lin)@r) for i,r in zip(ids,refs)])
    print(f'{label:40s} min {c.min():.5f} mean {c.mean():.5f} p1 {np.percentile(c,1):.5f}',flush=True); return c
if __name__=='__main__':
    I8=(63,255)
    allq={'qkv':I8,'attn':I8,'ffn1':I8,'ffn2':I8}
    run({},'float')
    run(allq,'all int8 (7b w, u8 a)')
    run({**allq,'qkv':None},'qkv float')
    run({**allq,'qkv':(63,None)},'qkv float act')
    run({**allq,'qkv':(0,255)},'qkv float weights')
    run({**allq,'qkv':(127,127)},'qkv 8b w, u7 a')
    run({**allq,'qkv':(63,65535)},'qkv 16b act (two pass)')
    run({**allq,'qkv':(4095,8191)},'qkv 13-bit both (the shipped path, near)')
