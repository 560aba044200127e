# MailSearch — build, run, test. Every target installs what is missing first.
SHELL := /bin/bash
SWIFT ?= swift
CORPORA ?= corpora
SHARED ?= ../shared
DEMO_DIR ?= .demo
export MAILSEARCH_DATA_DIR ?= $(CURDIR)/$(DEMO_DIR)/data

.PHONY: run test deps build release corpora model bench fuzz-mime fuzz-query clean

## make run: install what is missing, build a release binary, generate a demo mailbox, import it, print stats.
run: deps release
	@rm -rf $(DEMO_DIR) && mkdir -p $(DEMO_DIR)
	.build/release/mailsearch demo --output $(DEMO_DIR)/demo.mbox
	.build/release/mailsearch import $(DEMO_DIR)/demo.mbox --account demo
	.build/release/mailsearch stats
	@echo
	@echo "Ready to search: MAILSEARCH_DATA_DIR=$(MAILSEARCH_DATA_DIR) .build/release/mailsearch --help"

## make test: install what is missing, build (debug) and run every test.
test: deps corpora
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build 2>&1 | tee .build/test.log; exit $${PIPESTATUS[0]}

deps:
	@./scripts/install-deps.sh

build:
	$(SWIFT) build

release:
	$(SWIFT) build -c release --product mailsearch

## Unpack the shared corpora into ./corpora (ignored by git).
corpora:
	@./scripts/unpack-corpora.sh $(SHARED)/corpus $(CORPORA)

bench: deps corpora
	$(SWIFT) build -c release --product mailsearch-bench
	.build/release/mailsearch-bench $(BENCH_ARGS)

## make fuzz-mime [FUZZ_SECONDS=600]: libFuzzer over the MIME parser, seeded from the corpora.
fuzz-mime: deps corpora
	./Fuzz/run-mime-fuzzer.sh $(FUZZ_SECONDS)

## make fuzz-query [FUZZ_SECONDS=600]: libFuzzer over the query parser.
fuzz-query: deps
	./Fuzz/run-query-fuzzer.sh $(FUZZ_SECONDS)

clean:
	rm -rf .build $(DEMO_DIR)
