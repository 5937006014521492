# kstacks: Linux memory-performance patch stacks, their workbench and tests.
#
#   make run                 setup, then the main job: apply, build, boot, test,
#                            summary table (+ out/summary.json)
#   make check               the test command, what CI runs on every submission:
#                            unit tier, build coverage under each base's main
#                            config, the kernel tier's cells (IN_CHECK), proofs
#   make check-unit          the fast tier: no kernel object compiled
#   make check STACK=core BASE=6.1   one stack on one base
#   make matrix [BASE=6.1]   the full tier: every base (or one), build coverage
#                            under all its configs and its cell; records the
#                            proof of a base that passed (proofs/BASE)
#   make apply BASE=6.1 [STACK=core] [TREE=/your/linux]
#   make build BASE=6.1 [STACK=core] [FLAVOUR=debug|lean]
#   make shell BASE=6.1 [STACK=core] [FLAVOUR=debug|lean]
#   make bench [STACK=] [BASE=] [REPEAT=5]   base against patched, lean kernels
#   make series [STACK=] [BASE=]   mail-ready series under series/ (b4)
#   make drift BASE=6.1 [TO=linux-source-7.3|VERSION|FILE] [TREE=/your/linux]
#                            what each patch of the base's stacks does there
#   make refresh BASE=6.1 [TO=...] [NO_TEST=1]   rewrite the patches for it
#   make vanilla-check BASE=6.1 [STACK=] [TEST=name|boot|failed]
#                            base or stack: a cell's failure on the vanilla kernel
#   make suite BASE=6.1 STACK=io_uring-coalesce [SUITE=a,b] [FLAVOUR=latency] [ICOUNT=1]
#                            the stacks' suites (liburing, kselftests, stress-ng,
#                            trinity, cyclictest) on the vanilla and patched
#                            debug (or latency) kernels; ICOUNT=1: instructions
#                            as the clock
#   make linecov BASE=6.1 [STACK=]   the cell's tests under a gcov kernel: the
#                            share of each stack's patched lines they execute
#   make coverage BASE=6.1 [STACK=]   every prefix under Debian's configs
#                            and variants, W=1 and sparse (objects only)
#   make setup               install Debian packages, extract the bases
#   make debian BASE=6.1 [STACK=]   the stacks as Debian carries patches (DEP-3,
#                            a series snippet, a changelog entry): out/debian/BASE
#   make debian-check BASE=6.1 [STACK=]   the Debian tier: the export added to
#                            Debian's linux source package, built by dpkg-source
#   make clean               remove out/ (caches stay in ~/.cache/kstacks)

STACK ?=
BASE ?=
FLAVOUR ?= debug
TREE ?=
TO ?=

sel = $(if $(STACK),--stack $(STACK)) $(if $(BASE),--base "$(BASE)")

.PHONY: all run setup check check-unit matrix bench series trailers debian debian-check suite apply build shell drift refresh vanilla-check coverage linecov clean need-base

all: check

setup:
	tools/setup

run: setup
	tools/run $(sel)

check:
	tools/check $(sel)

check-unit:
	tools/check --unit $(sel)

matrix:
	tools/check --matrix $(sel)

bench:
	tools/bench $(sel) $(if $(REPEAT),--repeat $(REPEAT))

series:
	tools/series $(sel)

trailers: need-base
	$(if $(and $(STACK),$(MBOX)),,$(error STACK= and MBOX= are required))
	tools/trailers $(STACK) $(BASE) $(MBOX)

debian: need-base
	tools/debian export $(BASE) $(STACK)

debian-check: need-base
	tools/debian check $(BASE) $(STACK)

suite: need-base
	$(if $(STACK),,$(error STACK= is required (one of: $(shell ls */STACK | cut -d/ -f1 | xargs))))
	tools/suite --vanilla $(if $(filter 1,$(ICOUNT)),--icount) $(if $(FLAVOUR),--flavour $(FLAVOUR)) $(if $(SUITE),--suite $(SUITE)) $(BASE) $(STACK)
	tools/suite $(if $(filter 1,$(ICOUNT)),--icount) $(if $(FLAVOUR),--flavour $(FLAVOUR)) $(if $(SUITE),--suite $(SUITE)) $(BASE) $(STACK)
	tools/suite --compare $(if $(filter 1,$(ICOUNT)),--icount) $(if $(FLAVOUR),--flavour $(FLAVOUR)) $(if $(SUITE),--suite $(SUITE)) $(BASE) $(STACK)

need-base:
	$(if $(BASE),,$(error BASE= is required (one of: $(shell cd tools/bases && ls *.conf | sed 's/\.conf$$//' | sort -V | xargs))))

apply: need-base
	tools/apply $(if $(TREE),--tree $(TREE)) $(BASE) $(STACK)

build: need-base
	tools/build --flavour $(FLAVOUR) $(BASE) $(STACK)

shell: need-base
	tools/shell --flavour $(FLAVOUR) $(BASE) $(STACK)

drift: need-base
	tools/drift $(if $(TO),--to $(TO)) $(if $(TREE),--tree $(TREE)) $(if $(STACK),--stack $(STACK)) $(BASE)

refresh: need-base
	tools/refresh $(if $(NO_TEST),--no-test) $(if $(TO),--to $(TO)) $(if $(TREE),--tree $(TREE)) $(BASE)

coverage: need-base
	tools/coverage $(if $(CONFIG),--config $(CONFIG)) $(BASE) $(STACK)

linecov: need-base
	tools/linecov $(BASE) $(STACK)

vanilla-check: need-base
	tools/vanilla-check $(BASE) $(or $(TEST),failed) $(STACK)

clean:
	rm -rf out
