# callfleet — see README.md. `make demo` and `make test` are the two commands; both install what a
# fresh Debian machine lacks through `make deps` first.
SHELL := /bin/bash
GO ?= go
# hraban/opus needs libopusfile only for Ogg files, which callfleet never reads.
export GOFLAGS := -tags=nolibopusfile
BIN := bin/callfleet

# The Debian packages the build, the tests, the scripts and the binary need, and what each must
# provide, are listed in scripts/deps.txt; deps installs the missing ones and checks every promise.

.PHONY: all deps build test vet race accuracy browser demo bench fixtures lint fuzz clean

all: build

deps:
	@scripts/deps.sh scripts/deps.txt

build: deps
	$(GO) build -o $(BIN) ./cmd/callfleet

vet: deps
	$(GO) vet ./...

# The whole suite: vet, every package under the race detector (the browser test included), then the
# accuracy table, compiled only with its tag and run without -race (which would slow the
# transcriber's Go side tenfold). Not side by side: the table's CPU load made the timing tests
# (measurement truth within 15 ms) flake.
# The table runs quick here (half the phrases, same floors), to keep the suite short.
test: deps vet
	$(GO) test -race -timeout 15m ./...
	ACCURACY_QUICK=1 $(GO) test -tags=nolibopusfile,accuracy -run '^TestAccuracy$$' -timeout 15m -v ./speech/pool/

accuracy: deps
	$(GO) test -tags=nolibopusfile,accuracy -run '^TestAccuracy$$' -timeout 30m -v ./speech/pool/

demo: build
	$(BIN) demo

# Micro-benchmarks (transcriber CPU per audio second, a caller's audio path per 20 ms frame, codecs),
# then the agent's CPU and RSS per conversation measured by callfleet itself against `callfleet agent`,
# then how many callers one core drives (send lateness p99 <= 5 ms) against `callfleet agent --echo`.
bench: build
	$(GO) test -run '^$$' -bench . -benchtime 2s ./audio/ ./speech/... ./callers/... ./agent-under-test/turn/ | tee bench.txt
	scripts/bench-agent.sh | tee -a bench.txt
	scripts/bench-fleet.sh | tee -a bench.txt

fixtures: deps
	$(GO) run ./cmd/callfleet fixtures -o fixtures

# Each parser of untrusted input for a minute; inputs worth keeping go to the package's testdata/fuzz.
FUZZTIME ?= 60s
fuzz: deps
	$(GO) test -run '^$$' -fuzz '^FuzzReadWAV$$' -fuzztime $(FUZZTIME) ./audio/
	$(GO) test -run '^$$' -fuzz '^FuzzResample$$' -fuzztime $(FUZZTIME) ./audio/
	$(GO) test -run '^$$' -fuzz '^FuzzNormalize$$' -fuzztime $(FUZZTIME) ./speech/
	$(GO) test -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME) ./wire/twilio/
	$(GO) test -run '^$$' -fuzz '^FuzzFastPath$$' -fuzztime $(FUZZTIME) ./wire/twilio/
	$(GO) test -run '^$$' -fuzz '^FuzzParseStreamURL$$' -fuzztime $(FUZZTIME) ./wire/twilio/
	$(GO) test -run '^$$' -fuzz '^FuzzSignature$$' -fuzztime $(FUZZTIME) ./wire/twilio/
	$(GO) test -run '^$$' -fuzz '^FuzzSmallWebRTCAnswer$$' -fuzztime $(FUZZTIME) ./wire/signaling/
	$(GO) test -run '^$$' -fuzz '^FuzzWHIPAnswer$$' -fuzztime $(FUZZTIME) ./wire/signaling/
	$(GO) test -run '^$$' -fuzz '^FuzzReader$$' -fuzztime $(FUZZTIME) ./callers/twilio/
	$(GO) test -run '^$$' -fuzz '^FuzzRTPReader$$' -fuzztime $(FUZZTIME) ./callers/webrtc/
	$(GO) test -run '^$$' -fuzz '^FuzzParseSample$$' -fuzztime $(FUZZTIME) ./scenarios/
	$(GO) test -run '^$$' -fuzz '^FuzzClean$$' -fuzztime $(FUZZTIME) ./internal/safetext/
	$(GO) test -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME) ./wire/rtvi/
	$(GO) test -run '^$$' -fuzz '^FuzzSSEReader$$' -fuzztime $(FUZZTIME) ./wire/rtvi/
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeOffer$$' -fuzztime $(FUZZTIME) ./wire/signaling/
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeJSONL$$' -fuzztime $(FUZZTIME) ./report/
	$(GO) test -run '^$$' -fuzz '^FuzzRebuild$$' -fuzztime $(FUZZTIME) ./report/
	$(GO) test -run '^$$' -fuzz '^FuzzRenderReport$$' -fuzztime $(FUZZTIME) ./report/
	$(GO) test -run '^$$' -fuzz '^FuzzOfferHandler$$' -fuzztime $(FUZZTIME) ./agent-under-test/
	$(GO) test -run '^$$' -fuzz '^FuzzOpusIn$$' -fuzztime $(FUZZTIME) ./agent-under-test/
	$(GO) test -run '^$$' -fuzz '^FuzzTwiML$$' -fuzztime $(FUZZTIME) ./agent-under-test/
	$(GO) test -run '^$$' -fuzz '^FuzzTwilioStream$$' -fuzztime $(FUZZTIME) ./agent-under-test/

lint: deps vet
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.7.0 ./...

clean:
	rm -rf bin bench.txt
