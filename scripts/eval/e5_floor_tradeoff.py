#!/usr/bin/env python3
"""Trade-off of multilingual-e5-small's floor threshold T (the spread rule, a=3, c=0.1, depth 0.1): nonsense
queries keeping a hit and Success@20 on usrp-users and Enron (the features `MAILSEARCH_MODEL=multilingual-e5-small
mailsearch-bench eval` writes into bench-data/), against cross-language Success@20 in semantic mode (`make
eval-xling`'s pairs; query vectors from the numpy forward pass of scripts/reference/e5_reference.py, the stored
vectors of its `index embed`, the per-query floor computed as VectorSemanticRanker does over all 508 vectors).
At 0.892 it gives what the CLI measured (0.306).

  python3 scripts/eval/e5_floor_tradeoff.py TOKENIZER.JSON [MODEL_DIR]   (needs numpy and tokenizers)
"""
import json, os, sys, sqlite3, numpy as np, re
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, '..', '..')
sys.path.insert(0, HERE); sys.path.insert(0, os.path.join(HERE, '..', 'reference'))
MODEL = sys.argv[2] if len(sys.argv) > 2 else os.path.expanduser('~/.cache/mailsearch/models/multilingual-e5-small')
import calibrate_semantic as cs
from e5_reference import Bert
from tokenizers import Tokenizer
feats = {c: cs.load(os.path.join(ROOT, 'bench-data/eval-%s-multilingual-e5-small-features.jsonl' % c)) for c in ('usrp-users', 'enron-inbox')}
tok = Tokenizer.from_file(sys.argv[1])
bert = Bert(MODEL)
vocab = set(p.split('\t')[0] for p in open(os.path.join(MODEL, 'unigram.tsv'), encoding='utf-8'))
def known(text):
    words = [w for w in re.findall(r'[A-Za-z]+', text) if len(w) >= 3]
    if not words: return 0.0
    return sum(('▁' + w) in vocab or ('▁' + w.lower()) in vocab for w in words) / len(words)
db = sqlite3.connect(os.path.join(ROOT, 'bench-data/xling/data-multilingual-e5-small/mail.sqlite'))
rows = db.execute("SELECT e.messageId, e.threadId, m.vector FROM embeddings m JOIN emails e ON e.id = m.emailId").fetchall()
mids = [r[0] for r in rows]; V = np.array([np.frombuffer(r[2], '<f4') for r in rows])
pairs = [json.loads(l) for l in open(os.path.join(ROOT, 'eval-data/xling/queries.jsonl'))]
Q = []
for p in pairs:
    Q.append(bert(np.array(tok.encode('query: ' + p['query']).ids)))
Q = np.array(Q)
S = Q @ V.T
print('T      nonsense with a hit: usrp / enron   usrp topic/para/short S@20   enron topic/para/short   xling semantic S@20 (ja, zh, all)')
for T in (0.892, 0.88, 0.87, 0.86, 0.85, 0.84, 0.82, 0.80):
    out = []
    for c in ('usrp-users', 'enron-inbox'):
        r = cs.evaluate(feats[c], 'spread', (3.0, 0.1, T, 0.1), True)
        out.append(r)
    hits = {'ja': [0, 0], 'zh': [0, 0]}
    for i, p in enumerate(pairs):
        s = S[i]; sd = s.std(); floor = T + 0.1 * (1 - known(p['query'])) - 3 * sd
        order = np.argsort(-s)[:20]
        t = mids.index(p['target'])
        ok = t in order and s[t] >= floor
        hits[p['lang']][0] += ok; hits[p['lang']][1] += 1
    allh = (hits['ja'][0] + hits['zh'][0]) / (hits['ja'][1] + hits['zh'][1])
    f = lambda r, k: r[k]['success'] / r[k]['n']
    print('%.3f  %3d / %3d   %.3f/%.3f/%.3f   %.3f/%.3f/%.3f   %.3f %.3f %.3f' % (T, out[0]['nonsense']['any'], out[1]['nonsense']['any'],
          f(out[0], 'topic'), f(out[0], 'paraphrase'), f(out[0], 'short'), f(out[1], 'topic'), f(out[1], 'paraphrase'), f(out[1], 'short'),
          hits['ja'][0] / hits['ja'][1], hits['zh'][0] / hits['zh'][1], allh))
