# Shared shell functions of the workbench. Sourced, not run.
# shellcheck shell=bash

set -o pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TOOLS=$REPO/tools
CACHE=${KSTACKS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kstacks}
OUT=${KSTACKS_OUT:-$REPO/out}
jobs_given=${JOBS:+1}
JOBS=${JOBS:-$(nproc)}
export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
# Where the guest's part of a console log begins (ERE): the kernel's "Run
# /init" line (kernel messages on the serial line can cut the init's own
# marker), or that marker; it ends at kstacks-tests-end.
GUEST_BEGIN='Run /init as init process|kstacks-tests-begin'
export CCACHE_BASEDIR=$CACHE
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-20G}
export CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
export KBUILD_BUILD_USER=kstacks KBUILD_BUILD_HOST=kstacks
export LC_ALL=C

# console_text LOG: a console log as lines of text: carriage returns
# dropped, and the guest's own lines made whole again.  The init's
# output reaches the serial port through the tty's buffer, the kernel's
# messages are written to it directly, so a kernel message ("[   40.1]
# kstacks: running ...") can land inside a line of the init: "not ok 9
# io_urin[   40.1] ...", then "g-coalesce-register-errors # exit 1".
# The guest's line is put together again and the message follows it (it
# was written after the line began: the test it names comes after).
# Lines of a test's own output ("# ...") are left as they are: they may
# quote the kernel's log.
console_text() {
	tr -d '\r' <"$1" | awk '
		function klog(s) { return s ~ /^\[ *[0-9]+\.[0-9]+\] / }
		{
			if (cut != "") {
				if (klog($0)) { held = held "\n" $0; next }
				$0 = cut $0; cut = ""
			}
			if ($0 !~ /^#/ && match($0, /\[ *[0-9]+\.[0-9]+\] /) && RSTART > 1) {
				cut = substr($0, 1, RSTART - 1)
				held = held "\n" substr($0, RSTART)
				next
			}
			print
			if (held != "") { print substr(held, 2); held = "" }
		}
		END { if (cut != "") print cut; if (held != "") print substr(held, 2) }'
}

prog=$(basename "$0")

die() {
	echo "$prog: error: $*" >&2
	exit 1
}

warn() {
	echo "$prog: warning: $*" >&2
}

# optarg "$@": in an option parser, the option in $1 takes a value: it
# must have one (a missing one would loop forever on shift 2), and not an
# empty one.
optarg() {
	[ $# -ge 2 ] && [ -n "$2" ] && [ "${2#--}" = "$2" ] || die "$1 needs a value"
}

# number OPT VALUE: VALUE of option OPT is a whole number of at least one.
number() {
	[[ $2 =~ ^[0-9]+$ ]] && [ "$2" -ge 1 ] || die "$1 takes a whole number of at least 1, not '$2'"
}

now() { date +%s; }

hms() {
	local s=$1
	printf '%dm%02ds' $((s / 60)) $((s % 60))
}

# add_host_file STAGE PATH: a host file at the same path under STAGE (a
# guest's root); an ELF file brings its shared libraries and loader along.
add_host_file() {
	local st=$1 h=$2 l
	[ -e "$st$h" ] && return 0
	mkdir -p "$st$(dirname "$h")"
	cp -L "$h" "$st$h"
	if file -L "$h" | grep -q 'ELF.*dynamically linked'; then
		for l in $(ldd "$h" | grep -o '/[^ ]*'); do
			add_host_file "$st" "$l"
		done
	fi
}

# build_module KERNEL DIR WHAT WORK [VAR=VALUE...]: DIR's module, built out
# of tree against the kernel build KERNEL (make variables VAR=VALUE), in
# WORK/NAME/ (NAME: DIR's name); WHAT says what it is when it fails.
build_module() {
	local kernel=$1 kd=$2 what=$3 work=$4 name
	shift 4
	name=$(basename "$kd")
	[ -f "$kernel/Module.symvers" ] ||
		die "${kd#"$REPO"/} needs a kernel built with modules; $kernel has no Module.symvers"
	# Build a copy: kbuild writes its objects beside the sources.
	mkdir -p "$work"
	rm -rf "${work:?}/$name"
	cp -r "$kd" "$work/$name"
	make -C "$kernel" M="$work/$name" CC="ccache gcc" "$@" modules \
		>"$work/$name.log" 2>&1 || {
		cat "$work/$name.log" >&2
		die "$what ${kd#"$REPO"/} does not build against $kernel"
	}
}

# step DESC LOG CMD...: run CMD with output to LOG, show what runs, its
# elapsed time while it runs and where the log is.
step() {
	local desc=$1 log=$2 t0 pid rc tick=0
	shift 2
	mkdir -p "$(dirname "$log")"
	t0=$(now)
	echo "[$(date +%H:%M:%S)] $desc (log: $log)"
	"$@" >"$log" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 2
		tick=$((tick + 2))
		if [ $((tick % 60)) -eq 0 ]; then
			echo "           ... $desc: $(hms $(($(now) - t0))) elapsed"
		fi
	done
	wait "$pid"
	rc=$?
	if [ $rc -eq 0 ]; then
		echo "           done: $desc in $(hms $(($(now) - t0)))"
	else
		echo "           FAILED: $desc after $(hms $(($(now) - t0))) (exit $rc, log: $log)"
	fi
	return $rc
}

# --- a pool of steps ---------------------------------------------------------
# pool_add DESC LOG CMD...: as step, but in the background, at most $JOBS at
# a time (it waits for one to end before starting another); one line when it
# starts and one when it ends, with its time and log. pool_wait waits for
# all of them and fails when one did. The records a step writes are
# collected after pool_wait, in a fixed order, not in the order they end.
POOL_PIDS=()
pool_add() {
	local desc=$1 log=$2
	shift 2
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do
		wait -n
	done
	mkdir -p "$(dirname "$log")"
	echo "[$(date +%H:%M:%S)] $desc (log: $log)"
	(
		t0=$(now)
		"$@" >"$log" 2>&1
		rc=$?
		if [ $rc -eq 0 ]; then
			echo "           done: $desc in $(hms $(($(now) - t0)))"
		else
			echo "           FAILED: $desc after $(hms $(($(now) - t0))) (exit $rc, log: $log)"
		fi
		exit $rc
	) &
	POOL_PIDS+=($!)
}
pool_wait() {
	local p rc=0
	for p in "${POOL_PIDS[@]}"; do
		wait "$p" || rc=1
	done
	POOL_PIDS=()
	return $rc
}

# --- compile farm ----------------------------------------------------------
# KSTACKS_DISTCC_HOSTS names the distccd hosts of a compile farm, in distcc's
# own syntax: "HOST[:PORT][/LIMIT][,lzo] ..." (port 3632 and limit 4 when not
# given). Nothing is discovered: no other host is asked. farm_init, once per
# run (the tools a run starts inherit its result), tries a TCP connection to
# each host (FARM_TIMEOUT seconds, 2); the hosts that answer become
# DISTCC_HOSTS and ccache hands the kernel's compiles to distcc
# (CCACHE_PREFIX, tools/farm-cc: host programs compile here), and
# make's job count becomes the local cores plus the hosts' limits (unless
# JOBS was given). No host that answers: one warning line, a local build.
farm_init() {
	local spec host port limit ok= bad= sum=0
	[ -n "${KSTACKS_FARM_DONE:-}" ] && return 0
	export KSTACKS_FARM_DONE=1
	[ -n "${KSTACKS_DISTCC_HOSTS:-}" ] || return 0
	for spec in $KSTACKS_DISTCC_HOSTS; do
		if ! [[ $spec =~ ^([A-Za-z0-9._-]+)(:([0-9]+))?(/([0-9]+))?(:([0-9]+))?(,[a-z=,]*)?$ ]]; then
			die "KSTACKS_DISTCC_HOSTS: '$spec' is not a distcc TCP host (HOST[:PORT][/LIMIT][,lzo]; no zeroconf, no ssh)"
		fi
		host=${BASH_REMATCH[1]}
		port=${BASH_REMATCH[3]:-${BASH_REMATCH[7]:-3632}}
		limit=${BASH_REMATCH[5]:-4}
		if [ "$host" = localhost ]; then
			# distcc's name for compiling here, without a daemon.
			ok="$ok $spec" sum=$((sum + ${BASH_REMATCH[5]:-2}))
		elif timeout "${FARM_TIMEOUT:-2}" bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$host" "$port" 2>/dev/null; then
			ok="$ok $spec" sum=$((sum + limit))
		else
			bad="$bad $host:$port"
		fi
	done
	command -v distcc >/dev/null || die "KSTACKS_DISTCC_HOSTS is set but distcc is not installed (run tools/setup)"
	if [ -z "$ok" ]; then
		warn "compile farm unreachable (no answer within ${FARM_TIMEOUT:-2}s from$bad): building locally with -j$JOBS"
		return 0
	fi
	[ -n "$bad" ] && warn "compile farm: no answer within ${FARM_TIMEOUT:-2}s from$bad: building with the other hosts"
	[ -n "$jobs_given" ] || JOBS=$(($(nproc) + sum))
	export JOBS CCACHE_PREFIX=$TOOLS/farm-cc DISTCC_HOSTS="${ok# }" KSTACKS_FARM="${ok# }"
	export DISTCC_DIR=${DISTCC_DIR:-$CACHE/distcc}
	mkdir -p "$DISTCC_DIR"
	echo "$prog: compile farm: distcc to $DISTCC_HOSTS, make -j$JOBS" >&2
}

# kernel_make SRC ARGS...: make in a kernel tree, compiling through ccache
# (and through the farm, after farm_init found one).
kernel_make() {
	local src=$1
	shift
	make -C "$src" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" "$@"
}

# --- bases -----------------------------------------------------------------

all_bases() {
	local f
	for f in "$TOOLS"/bases/*.conf; do
		basename "$f" .conf
	done | sort -V
}

# IN_CHECK in a base's conf: whether a plain make check runs a cell of the
# base. "no": not (make check BASE=B and make matrix run its cell); a list
# of stacks: a cell of those only (what fits CI; make matrix runs the
# base's full cell); not set: the full cell.
# The bases a run without BASE= takes: all but those with IN_CHECK=no.
default_bases() {
	local b
	for b in $(all_bases); do
		[ "$(base_conf "$b" && echo "$IN_CHECK")" = no ] || echo "$b"
	done
}
# The LTS bases: neither a flavour of another base (SOURCE, BASE_PATCH) nor
# the mainline base. make run and make bench take these when no BASE= is
# given.
lts_bases() {
	local b
	for b in $(all_bases); do
		(base_conf "$b" && [ -z "$SOURCE$BASE_PATCH" ] && [ "$MAINLINE" != yes ]) && echo "$b"
	done
	return 0
}
# in_check_stacks B: the stacks IN_CHECK names for base B, if it names any.
in_check_stacks() {
	local v s
	v=$(base_conf "$1" && echo "$IN_CHECK")
	case $v in "" | no | yes) return 0 ;; esac
	for s in $v; do
		[ -f "$REPO/$s/STACK" ] || die "tools/bases/$1.conf: IN_CHECK names no stack '$s'"
	done
	echo "$v"
}

check_base() {
	[ -f "$TOOLS/bases/$1.conf" ] ||
		die "unknown base '$1' (known: $(all_bases | tr '\n' ' '))"
}

# --- metadata ----------------------------------------------------------------
# A stack's STACK file and a base's tools/bases/BASE.conf are data, read and
# never run: kstacks meta (tools/pylib/kstacks/meta.py, which holds the
# schema) reads every one against its schema when a tool starts, so a
# mistake stops the tool before it does anything, with one line naming the
# file, the line and the key. META holds the values: META[stack/NAME/KEY],
# META[base/NAME/KEY], META[version/STACK/BASE] the version of the stack's
# series on the base, and META[schema/KIND/KEY] the type of every key.
declare -A META
meta_load() {
	local out kind name key val
	if ! out=$("$TOOLS/kstacks" meta dump 2>&1); then
		die "${out#kstacks meta: error: }"
	fi
	META=()
	while IFS=$'\t' read -r kind name key val; do
		META[$kind/$name/$key]=$val
	done <<<"$out"
}

# base_conf BASE: the base's conf as shell variables (each key of the
# schema, empty when the conf does not set it).
base_conf() {
	local k
	check_base "$1"
	for k in "${!META[@]}"; do
		[[ $k == schema/base/* ]] || continue
		k=${k#schema/base/}
		printf -v "$k" '%s' "${META[base/$1/$k]:-}"
	done
}

# The main config of a base: the first of COVERAGE in its conf (Debian's
# amd64 flavour, rt-amd64 for an RT flavour). make check compiles every
# prefix under it; make matrix under all of COVERAGE.
base_main_config() {
	(base_conf "$1" && set -- ${COVERAGE:-} && echo "${1:-}")
}

# What a base is made of: "Debian linux-source-6.1", "Debian
# linux-source-5.10 with linux-patch-5.10-rt.patch.xz".
base_desc() {
	(base_conf "$1" && echo "Debian $PACKAGE${BASE_PATCH:+ with $(basename "$BASE_PATCH")}")
}

# Pristine extracted tree of a base; extracted once, atomically. A base
# with SOURCE=B in its conf (a flavour of B: same source, another config)
# shares the tree of base B.
base_src() {
	local src
	src=$(base_conf "$1" && echo "${SOURCE:-}")
	echo "$CACHE/linux-source-${src:-$1}"
}

# Versions of a base. PROVEN in BASE.conf is the Debian version of its
# package that the stacks were last proven on; found is the version
# installed here (empty when the package is not installed).
base_proven() { (base_conf "$1" && echo "${PROVEN:-}"); }
base_found() {
	(
		base_conf "$1"
		if [ "${FETCH:-}" = yes ]; then
			cat "$(base_src "$1").version" 2>/dev/null
			exit 0
		fi
		dpkg-query -W -f='${db:Status-Status} ${Version}\n' "$PACKAGE" 2>/dev/null |
			sed -n 's/^installed //p'
	)
}

# base_drift_note B: one line when the installed package of base B is not
# the version its stacks were proven on; nothing otherwise.
base_drift_note() {
	local p f
	p=$(base_proven "$1") f=$(base_found "$1")
	if [ -n "$p" ] && [ -n "$f" ] && [ "$p" != "$f" ]; then
		echo "base $1: proven on $p, found $f; run make drift BASE=$1"
	fi
	return 0
}

# The upstream release of a Debian version (1:6.1.192-3 -> 6.1.192) and the
# release a kernel tree says it is (its Makefile).
upstream_version() {
	local v=${1#*:}
	echo "${v%%-*}"
}
tree_kernel_version() {
	awk '/^VERSION =/{v=$3} /^PATCHLEVEL =/{p=$3} /^SUBLEVEL =/{s=$3}
		END{if (v != "") print v "." p "." s}' "$1/Makefile" 2>/dev/null
}

# The Debian version of the extracted tree of a base: recorded beside it
# when it was extracted. A tree extracted before versions were recorded is
# taken for the installed package when their upstream releases agree.
base_tree_version() {
	local stamp f
	stamp=$(base_src "$1").version
	if [ -f "$stamp" ]; then
		cat "$stamp"
		return 0
	fi
	f=$(base_found "$1")
	[ -n "$f" ] && [ "$(tree_kernel_version "$(base_src "$1")")" = "$(upstream_version "$f")" ] &&
		echo "$f"
	return 0
}

# The extracted tree follows the installed package: when apt brought a new
# version (the tree's recorded version differs), it is extracted again.
ensure_base() {
	local b=$1 dst tmp tarball have found
	base_conf "$b"
	if [ -n "${SOURCE:-}" ]; then
		ensure_base "$SOURCE"
		return
	fi
	dst=$(base_src "$b")
	# A base Debian builds for a newer release than this machine's
	# (FETCH=yes): its package is downloaded and unpacked, never installed
	# (installing would drag in that release's dependencies).
	if [ "${FETCH:-}" = yes ]; then
		[ -f "$dst/Makefile" ] && return 0
		fetch_base "$b"
		return
	fi
	if [ -f "$dst/Makefile" ]; then
		found=$(base_found "$b")
		have=$(base_tree_version "$b")
		[ -z "$found" ] || [ "$have" = "$found" ] && return 0
		echo "$prog: base $b: the extracted tree is ${have:-Linux $(tree_kernel_version "$dst")}, $PACKAGE $found is installed: extracting that" >&2
	fi
	# A flavour that is the package's tree with a patch of Debian's on top
	# (an RT flavour) starts from the plain base's extracted tree, hard
	# links (patch writes new files, never through a link), not from the
	# tarball a second time.
	local from= o pkg=$PACKAGE
	if [ -n "${BASE_PATCH:-}" ]; then
		for o in $(all_bases); do
			[ "$o" != "$b" ] || continue
			(base_conf "$o" && [ "$PACKAGE" = "$pkg" ] && [ -z "$BASE_PATCH$SOURCE$FETCH" ]) || continue
			from=$o
			break
		done
	fi
	mkdir -p "$CACHE"
	if [ -n "$from" ]; then
		ensure_base "$from"
		base_conf "$b"
		tmp=$(mktemp -d "$CACHE/.extract-$b.XXXXXX")
		mkdir "$tmp/$PACKAGE"
		if ! step "copy base $from to base $b (hard links)" "$CACHE/logs/extract-$b.log" \
			cp -al "$(base_src "$from")/." "$tmp/$PACKAGE/"; then
			rm -rf "$tmp"
			die "base $b: copying the tree of base $from failed"
		fi
	else
		tarball=/usr/src/$PACKAGE.tar.xz
		if [ ! -f "$tarball" ]; then
			if [ "$(id -u)" -eq 0 ]; then
				apt-get install -y -q "$PACKAGE" >/dev/null 2>&1 ||
					die "base $b: cannot obtain Debian package $PACKAGE from suite $SUITE (run tools/setup)"
			fi
			[ -f "$tarball" ] ||
				die "base $b: $tarball missing: Debian package $PACKAGE ($SUITE) is not installed (run tools/setup)"
		fi
		tmp=$(mktemp -d "$CACHE/.extract-$b.XXXXXX")
		if ! step "extract base $b" "$CACHE/logs/extract-$b.log" \
			tar -C "$tmp" -xJf "$tarball"; then
			rm -rf "$tmp"
			die "base $b: extracting $tarball failed"
		fi
	fi
	# A base that is the package's source with a patch of Debian's on top
	# (BASE_PATCH: the RT patch the package installs beside its tarball).
	if [ -n "${BASE_PATCH:-}" ]; then
		[ -f "$BASE_PATCH" ] || {
			rm -rf "$tmp"
			die "base $b: $BASE_PATCH missing (it comes with $PACKAGE; run tools/setup)"
		}
		if ! step "apply $(basename "$BASE_PATCH") to base $b" "$CACHE/logs/extract-$b-patch.log" \
			sh -c 'xzcat "$1" | patch -d "$2" -p1 -F0 -s' sh "$BASE_PATCH" "$tmp/$PACKAGE"; then
			rm -rf "$tmp"
			die "base $b: $BASE_PATCH does not apply to $PACKAGE with --fuzz=0 (log: $CACHE/logs/extract-$b-patch.log)"
		fi
	fi
	rm -rf "$dst"
	mv "$tmp/$PACKAGE" "$dst" && rmdir "$tmp"
	found=$(base_found "$b")
	echo "${found:-unknown}" >"$dst.version"
}

# fetch_base B: the tree of a FETCH=yes base, from tools/fetch-source (the
# version the stacks were proven on when Debian still serves it, else the
# newest), copied to the base's place in the cache.
fetch_base() {
	local b=$1 tree tmp dst
	dst=$(base_src "$b")
	tree=$("$TOOLS/fetch-source" "$PACKAGE${PROVEN:+=$PROVEN}" 2>/dev/null) ||
		tree=$("$TOOLS/fetch-source" "$PACKAGE") ||
		die "base $b: cannot download Debian package $PACKAGE ($SUITE)"
	[ -f "$tree/Makefile" ] || die "base $b: no kernel tree from tools/fetch-source $PACKAGE"
	tmp=$(mktemp -d "$CACHE/.extract-$b.XXXXXX")
	# Hard links: the fetched tree stays where tools/fetch-source keeps
	# it, and the base's tree is not a second copy of it.
	step "link $(basename "$tree") as base $b" "$CACHE/logs/extract-$b.log" cp -al "$tree" "$tmp/tree" || {
		rm -rf "$tmp"
		die "base $b: copying $tree failed"
	}
	rm -rf "$dst"
	mv "$tmp/tree" "$dst" && rmdir "$tmp"
	cp "$tree.version" "$dst.version" 2>/dev/null || echo unknown >"$dst.version"
}

# base_config_dir B: where Debian's configs of base B are (config.FLAVOUR.xz
# files of its CONFIG_PACKAGE): installed in /usr/src, or for a FETCH=yes
# base downloaded and unpacked by tools/fetch-source.
base_config_dir() {
	(
		base_conf "$1"
		[ -n "${CONFIG_PACKAGE:-}" ] || exit 0
		if [ "${FETCH:-}" = yes ]; then
			"$TOOLS/fetch-source" "$CONFIG_PACKAGE"
		else
			echo "/usr/src/$CONFIG_PACKAGE"
		fi
	)
}

# The first lines of kernel reports that fail a run, as liburing's runtests
# looks for them: BUG, WARNING, Oops, KASAN, UBSAN, lockdep, hung tasks,
# RCU stalls, panics (tools/check-log, tools/vanilla-check).
KERNEL_REPORT_RE='BUG:|WARNING:|Oops|Kernel panic|kernel BUG at|general protection fault|KASAN:|UBSAN:'
KERNEL_REPORT_RE="$KERNEL_REPORT_RE|possible circular locking|possible recursive locking|inconsistent lock state"
KERNEL_REPORT_RE="$KERNEL_REPORT_RE|suspicious RCU usage|lock held when returning|bad unlock balance"
KERNEL_REPORT_RE="$KERNEL_REPORT_RE|INFO: task .* blocked for more than|rcu: INFO: .* stall|self-detected stall"
KERNEL_REPORT_RE="$KERNEL_REPORT_RE|soft lockup|hard LOCKUP|Unable to handle kernel|cut here"

# config_objects SRC CONFIG: of the files named on stdin (paths in tree SRC),
# the objects of the C files that CONFIG builds (built in or as a module),
# one per line: what a patch touching those files must compile.
config_objects() {
	local src=$1 config=$2 f o d sym
	while read -r f; do
		case $f in *.c) ;; *) continue ;; esac
		[ -f "$src/$f" ] || continue
		o=$(basename "$f" .c).o
		d=$(dirname "$f")
		sym=$(sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$src/$d/Makefile" 2>/dev/null |
			sed -n "s/^obj-\$(\(CONFIG_[A-Z0-9_]*\)).*[[:space:]=]$o\b.*/\1/p; s/^[a-z0-9_-]*-y.*[[:space:]=]$o\b.*/y/p" | head -n1)
		case $sym in
		y) echo "$d/$o" ;;
		CONFIG_*) grep -qE "^$sym=[ym]" "$config" && echo "$d/$o" ;;
		esac
	done
	return 0
}

# --- stacks ----------------------------------------------------------------

all_stacks() {
	local d
	for d in "$REPO"/*/STACK; do
		[ -f "$d" ] && basename "$(dirname "$d")"
	done
}

check_stack() {
	[ -f "$REPO/$1/STACK" ] ||
		die "unknown stack '$1' (known: $(all_stacks | tr '\n' ' '))"
}

# stack_var STACK KEY: a value of the stack's STACK file (empty when not set).
stack_var() {
	[ -n "${META[schema/stack/$2]:-}" ] || die "stack_var: $2 is not a key of a STACK file"
	check_stack "$1"
	printf '%s\n' "${META[stack/$1/$2]:-}"
}

# stack_version STACK BASE: the version of the stack's series on the base:
# the base's own (BASE_VERSIONS="6.1:5", where a make refresh of that base
# alone moved it on) or the stack's VERSION.
# A base that takes another's series (a link) is at that base's version.
# Computed by kstacks meta (Meta.stack_version), read from META.
stack_version() {
	check_stack "$1"
	check_base "$2"
	printf '%s\n' "${META[version/$1/$2]}"
}

stack_bases() {
	local f
	for f in "$REPO/$1"/patches/*/series; do
		[ -f "$f" ] && basename "$(dirname "$f")"
	done | sort -V
}

# The bases whose series are the stack's own: a base whose patches/BASE is
# a symbolic link to another base's (an RT flavour taking the same patches)
# is linted and mailed as that base.
stack_own_bases() {
	local b
	for b in $(stack_bases "$1"); do
		[ -L "$REPO/$1/patches/$b" ] || echo "$b"
	done
}

# check_pair STACK BASE...: the stack is carried on each base named (a run
# for a pair that does not exist would test nothing and pass).
check_pair() {
	local s=$1 b
	shift
	for b; do
		stack_supports "$s" "$b" ||
			die "stack $s is not carried on base $b (it is on: $(for x in $(stack_bases "$s"); do stack_supports "$s" "$x" && echo "$x"; done | xargs))"
	done
}

# A base is carried when the stack has a series for it and does not list it
# as PENDING (written, lint-clean, but not yet proven in a booted kernel).
# KSTACKS_WITH_PENDING=1 takes pending series too, to prove them.
# Computed by kstacks meta (Meta.supports), read from META.
stack_supports() {
	[ "${META[carried/$1/$2]:-}" = yes ]
}

# Stacks and everything they depend on, dependencies first, otherwise in
# the order of all_stacks whatever order they were named in: the set names
# a cell's build tree, so one set must not get two trees.
stack_closure() {
	local s want
	for s in "$@"; do check_stack "$s" || return 1; done
	want=" $(stack_deps_first "$@" | xargs) "
	for s in $(all_stacks); do
		case $want in *" $s "*) stack_deps_first "$s" ;; esac
	done | awk '!seen[$0]++'
}
stack_deps_first() {
	local s d
	for s in "$@"; do
		for d in $(stack_var "$s" DEPENDS); do
			stack_deps_first "$d"
		done
		echo "$s"
	done
}

# Stacks whose feature BASE has upstream and whose tests run there anyway
# (UPSTREAM_TESTS in STACK): the tests check behaviour, so they must pass
# on upstream's own implementation too. Their Kconfig fragment goes into
# every kernel of BASE, their guest tests into its cell and their
# benchmarks into its runs; none of their patches are applied.
# upstream_test_stacks BASE [STACK...]: those stacks, but for the STACKs
# given (a cell's own stacks, whose tests run anyway).
upstream_test_stacks() {
	local s base=$1
	shift
	for s in $(all_stacks); do
		case " $* " in *" $s "*) continue ;; esac
		case " $(stack_var "$s" UPSTREAM_TESTS) " in *" $base "*) echo "$s" ;; esac
	done
}

# Stacks whose benchmark programs run on BASE's upstream implementation:
# those of upstream_test_stacks and those naming BASE in UPSTREAM_BENCH
# (benchmarks only: the tests may need what only the carried bases have).
upstream_bench_stacks() {
	local s
	for s in $(all_stacks); do
		case " $(stack_var "$s" UPSTREAM_TESTS) $(stack_var "$s" UPSTREAM_BENCH) " in
		*" $1 "*) echo "$s" ;;
		esac
	done
}

# The values of a STACK variable over some stacks, on one line.
stacks_var() {
	local v=$1 s
	shift
	for s in "$@"; do stack_var "$s" "$v"; done | xargs
}

# A stack's guest test programs and its benchmark programs (C, shell, and
# benchmark modules as STACK/bench/NAME/Kbuild), one path per line.
guest_programs() {
	ls "$REPO/$1"/tests/guest/*.c "$REPO/$1"/tests/guest/*.sh 2>/dev/null
	return 0
}
bench_programs() {
	ls "$REPO/$1"/bench/*.c "$REPO/$1"/bench/*.sh "$REPO/$1"/bench/*/Kbuild 2>/dev/null
	return 0
}

# bench_program_name STACK FILE: the name a program of bench_programs
# goes by (STACK-NAME, as in the guest's /bench and the report).
bench_program_name() {
	case $2 in
	*/Kbuild) echo "$1-$(basename "$(dirname "$2")")" ;;
	*) echo "$1-$(basename "${2%.*}")" ;;
	esac
}

# Patch files of a stack on a base, in series order.
stack_patches() {
	local dir=$REPO/$1/patches/$2 p
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$dir/series" | while read -r p _; do
		echo "$dir/$p"
	done
}

# series_patches BASE STACK...: the patches of the stacks on BASE, in
# order, then KSTACKS_EXTRA_PATCHES (paths: a mutant, a selftest's probe),
# one absolute path a line.
series_patches() {
	local base=$1 s p
	shift
	for s in "$@"; do stack_patches "$s" "$base"; done
	for p in ${KSTACKS_EXTRA_PATCHES:-}; do
		[ -f "$p" ] || die "no such patch: $p"
		echo "$(cd "$(dirname "$p")" && pwd)/$(basename "$p")"
	done
}

# lay_out_series TREE: the patches on standard input (series_patches) as
# the quilt series TREE/kstacks-patches, links to the repository's files.
lay_out_series() {
	local dir=$1/kstacks-patches p n
	mkdir -p "$dir"
	while read -r p; do
		case $p in
		"$REPO"/*) n=${p#"$REPO"/} ;;
		*) n=extra/$(basename "$p") ;;
		esac
		mkdir -p "$dir/$(dirname "$n")"
		ln -s "$p" "$dir/$n"
		echo "$n" >>"$dir/series"
	done
}

# --- proofs of the cells ------------------------------------------------------
# A base's proof (proofs/BASE, written by make matrix) records its last full
# run: the build coverage under all its configs and its cell, passed with
# every stack it carries. It names what that run was made of: the inputs
# below. make check fails a base whose inputs are no longer those, and make
# series will not mail a series of such a base.

# base_stacks B: the stacks base B carries, with what they depend on.
base_stacks() {
	local s set
	set=$(for s in $(all_stacks); do stack_supports "$s" "$1" && echo "$s"; done)
	[ -z "$set" ] || stack_closure $set
}

# cell_inputs B: what the full run of base B is made of, one "SHA1  WHAT"
# line each, sorted by WHAT: the code of the patches of the stacks it
# carries (their diffs: a reworded commit message proves nothing anew) and
# their series files; the guest
# tests (and the files of other stacks they #include "../../../..."),
# test modules, shell helpers and Kconfig fragments of those stacks
# and of the stacks whose tests run on the base's upstream code
# (UPSTREAM_TESTS), and their STACK settings a cell reads; the base's
# package, proven version and configs; the common and debug config
# fragments. Not the workbench's tools: make check's own cell and
# self-tests prove those on every run.
# quoted_includes F DEPTH: the files F names in '#include "..."' lines
# that exist (paths relative to the current directory), and theirs in turn,
# DEPTH levels deep.
quoted_includes() {
	local f=$1 depth=$2 inc g
	[ "$depth" -gt 0 ] || return 0
	sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f" | while read -r inc; do
		g=$(realpath -m --relative-to=. "$(dirname "$f")/$inc")
		[ -f "$g" ] || continue
		echo "$g"
		quoted_includes "$g" $((depth - 1))
	done
}

cell_inputs() {
	local b=$1 set s p v f
	set=$(base_stacks "$b")
	[ -n "$set" ] || return 0
	{
		for s in $set; do
			for p in $(stack_patches "$s" "$b"); do
				printf '%s  %s\n' "$(patch_code_sum "$p")" "${p#"$REPO"/}"
			done
			f=$s/patches/$b/series
			printf '%s  %s\n' "$(sha1sum <"$REPO/$f" | cut -c1-40)" "$f"
		done
		for s in $set $(upstream_test_stacks "$b" $set); do
			(
				cd "$REPO" || exit 1
				[ -d "$s/tests" ] && find "$s/tests" -path "$s/tests/unit" -prune -o -type f -print
				ls "$s/kconfig" "$s/kconfig.$b" 2>/dev/null
				# what a test takes from another stack's tests by a
				# relative #include ("../../../STACK/tests/guest/F.c"),
				# and what that file includes in turn
				[ -d "$s/tests" ] && find "$s/tests" -path "$s/tests/unit" -prune -o -type f -name '*.[ch]' -print |
					while read -r f; do
						quoted_includes "$f" 4
					done
			) | sort -u | while read -r f; do
				printf '%s  %s\n' "$(sha1sum <"$REPO/$f" | cut -c1-40)" "$f"
			done
			for v in DEPENDS KUNIT_SUITES QEMU_NEEDS ALT_NEEDS BOOT_ARGS TEST_MEM SEPARATE_TESTS UPSTREAM_TESTS; do
				printf '%s  %s\n' "$(stack_var "$s" "$v" | sha1sum | cut -c1-40)" "$s/STACK $v"
			done
		done
		for v in PACKAGE PROVEN BASE_PATCH SOURCE COVERAGE; do
			printf '%s  %s\n' "$(base_conf "$b" && eval "echo \"\${$v:-}\"" | sha1sum | cut -c1-40)" "tools/bases/$b.conf $v"
		done
		for f in tools/config/common.config tools/config/debug.config "tools/bases/$b.config" "tools/bases/$b.problems"; do
			[ -f "$REPO/$f" ] && printf '%s  %s\n' "$(sha1sum <"$REPO/$f" | cut -c1-40)" "$f"
		done
	} | sort -k2
}

# cell_key B: one sum of those inputs.
cell_key() {
	cell_inputs "$1" | sha1sum | cut -c1-16
}

# proof_field B NAME: a field of base B's proof ("NAME<TAB>value" lines).
proof_field() {
	awk -F'\t' -v n="$2" '$1 == n { print $2; exit }' "$REPO/proofs/$1" 2>/dev/null
}

# proof_problem B: nothing when base B's proof is of its current inputs;
# otherwise why not, in one line.
proof_problem() {
	local b=$1 f=$REPO/proofs/$1 changed
	[ -n "$(base_stacks "$b")" ] || return 0
	if [ ! -f "$f" ]; then
		echo "base $b has no proof: run make matrix BASE=$b and commit proofs/$b"
		return 0
	fi
	[ "$(proof_field "$b" key)" = "$(cell_key "$b")" ] && return 0
	changed=$(diff <(sed -n '/^inputs$/,$p' "$f" | tail -n +2) <(cell_inputs "$b") |
		sed -n 's/^[<>] [0-9a-f]*  //p' | sort -u | head -n 4 | paste -sd, - | sed 's/,/, /g')
	echo "base $b changed since its proof of $(proof_field "$b" date) (${changed:-its inputs}): run make matrix BASE=$b and commit proofs/$b"
}

# --- provenance of stored patches -------------------------------------------
# Every stored patch says where it stands upstream, in the header lines a
# distribution maintainer knows from SUSE's kernel trees, right after its
# Subject: line (quilt, patch and git am pass over them; a long line may go
# on in lines that start with a blank):
#   Patch-mainline: Never, <reason>      upstream has it, differently
#   Patch-mainline: Not yet, <reason>    upstream does not have it
#   References: <id> ("<subject>", <release>)[; ...]
# References: names the upstream commits that implement the same behaviour,
# or that the patch fixes or mirrors (12-character ids).

# patch_header_field FILE NAME: the value of header line NAME of a stored
# patch (the lines before the first empty one), continuation lines joined.
patch_header_field() {
	awk -v want="$2" '
		NF == 0 { exit }
		/^[ \t]/ { if (on) { v = $0; sub(/^[ \t]+/, "", v); val = val " " v }; next }
		{ on = 0 }
		index($0, want ":") == 1 { on = 1; val = substr($0, length(want) + 2); sub(/^[ \t]+/, "", val) }
		END { if (val != "") print val }' "$1"
}

# patch_refs FILE: the upstream ids its References: line names, one a line.
patch_refs() {
	patch_header_field "$1" References | grep -oE '(^|; )[0-9a-f]{12} \(' | grep -oE '[0-9a-f]{12}'
	return 0
}

# patch_sum FILE: sha1 of a stored patch without its provenance lines. They
# do not reach the mail (git am drops them), so adding or rewording them
# does not make a new version of a series; everything else does.
patch_sum() {
	awk 'body { print; next }
		NF == 0 { body = 1; print; next }
		/^(Patch-mainline|References):/ { skip = 1; next }
		/^[ \t]/ && skip { next }
		{ skip = 0; print }' "$1" | sha1sum | cut -d' ' -f1
}

# patch_code_sum FILE: sha1 of the diff of a stored patch, from its first
# "diff --git" or "--- " file line on: what a kernel built with it is made of.
patch_code_sum() {
	awk '/^(diff --git |--- (a\/|\/dev\/null))/ { on = 1 } on' "$1" | sha1sum | cut -d' ' -f1
}

# stack_source STACK BASE: what a series records as the patches it was made
# from (series/STACK/BASE/vN/.source), one "SUM  PATH" line per patch.
stack_source() {
	local p
	for p in $(stack_patches "$1" "$2"); do
		printf '%s  %s\n' "$(patch_sum "$p")" "${p#"$REPO"/}"
	done
}

# One reference: an id, then the subject in double quotes (which may hold
# quotes itself) and the release, in brackets.
PROVENANCE_REF_RE='[0-9a-f]{12} \("(?:[^"]|"(?![,)]))+", [^;()"]+\)'

# provenance_problems FILE: what is wrong with the provenance lines of a
# stored patch; nothing for a good one.
provenance_problems() {
	local p=$1 pm refs why=
	pm=$(patch_header_field "$p" Patch-mainline)
	refs=$(patch_header_field "$p" References)
	if [ -z "$pm" ]; then
		why="no Patch-mainline: line after the Subject: (vX.Y, Never, <reason> or Not yet, <reason>)"
	elif ! [[ $pm =~ ^(Never|Not\ yet),\ [^\ ] || $pm =~ ^v[0-9]+\.[0-9]+$ ]]; then
		why="Patch-mainline: is neither vX.Y (a backport) nor 'Never, <reason>' nor 'Not yet, <reason>': $pm"
	elif ! awk '/^Subject:/ { getline; exit !/^Patch-mainline:/ }' "$p"; then
		why="Patch-mainline: does not follow the Subject: line"
	fi
	if [ -z "$refs" ]; then
		case $pm in
		"Not yet, "*) ;;
		*) why="${why:+$why; }no References: line naming the upstream commits (<id> (\"<subject>\", <release>))" ;;
		esac
	elif ! printf '%s\n' "$refs" | grep -qP "^$PROVENANCE_REF_RE(; $PROVENANCE_REF_RE)*\$"; then
		why="${why:+$why; }References: is not '<12-char id> (\"<subject>\", <release>)[; ...]': $refs"
	fi
	echo "$why"
}

# --- upstream commits of a stack -------------------------------------------------
# STACK/upstream.tsv: the upstream commits that implement what the stack
# carries ("equivalent") and upstream's post-merge fixes to that feature
# ("fix"), one a line, tab separated, after comment lines starting with #:
#   kind  id  release  subject  author  bug-class  affected-here  test

# upstream_tsv_problems FILE: what is wrong with such a table, one problem a
# line; nothing for a good one.
upstream_tsv_problems() {
	local f=$1
	if [ ! -f "$f" ]; then
		echo "missing: each stack keeps its table of upstream commits there"
		return 0
	fi
	head -n1 "$f" | grep -q '^#' || echo "line 1: not a comment header (# kind, id, release, ...)"
	awk -F'\t' '
		/^#/ || /^$/ { next }
		{
			w = "line " NR ": "
			if (NF != 8) { print w NF " fields, not 8 (kind, id, release, subject, author, bug class, affected here, test)"; next }
			for (i = 1; i <= 8; i++) if ($i == "") { print w "field " i " is empty"; next }
			if ($1 != "equivalent" && $1 != "fix") print w "kind " $1 " is neither equivalent nor fix"
			if ($2 != "-" && !(length($2) == 12 && $2 ~ /^[0-9a-f]+$/)) print w "id " $2 " is not 12 hex digits (nor - for no mainline commit)"
			if ($2 == "-" && $1 != "fix") print w "an equivalent needs its id"
			if ($2 != "-" && seen[$2]++) print w "id " $2 " is listed twice"
			if ($5 !~ /<[^<>@ ]+@[^<> ]+>/ && $5 !~ /address not found/ && $5 != "-") print w "author is neither Name <e-mail> nor Name (address not found)"
			if ($7 !~ /^(yes|no|n\.a\.)[:,]/ && $7 !~ /^(yes|no|n\.a\.)$/) print w "affected here starts with neither yes, no nor n.a."
			if ($1 == "fix" && $7 ~ /^yes/ && $7 !~ /handled|open/) print w "an affecting fix must say whether it is handled or open"
			if ($8 !~ /^(kunit [A-Za-z0-9_]+\.[A-Za-z0-9_]+|guest [A-Za-z0-9_.-]+)/ && $8 !~ /^- \(.+\)$/) print w "test is neither kunit SUITE.CASE, guest NAME nor - (why)"
		}' "$f"
}

# tools/upstream-commits.tsv: the verified mainline commits the project may
# cite, one a line, tab separated, after comment lines starting with #:
#   id  subject  release  author  source
UPSTREAM_COMMITS=$TOOLS/upstream-commits.tsv

# upstream_facts_problems FILE: the upstream ids FILE gives that do not
# agree with tools/upstream-commits.tsv, one problem a line; nothing when
# all agree. FILE is a STACK/upstream.tsv (every 12-hex id of its id
# column: subject, release and the author's name and address must be the
# table's) or a stored patch (every id of its References: line: subject
# and release). An id the table does not list is a problem: it is not a
# verified mainline commit.
upstream_facts_problems() {
	local f=$1
	if [ ! -f "$UPSTREAM_COMMITS" ]; then
		echo "tools/upstream-commits.tsv is missing: the upstream ids cannot be checked"
		return 0
	fi
	{
		case $f in
		*.patch)
			patch_header_field "$f" References | perl -ne '
				while (/([0-9a-f]{12}) \("((?:[^"]|"(?![,)]))+)", ([^;()"]+)\)/g) {
					print "References\t$1\t$2\t$3\t\n";
				}'
			;;
		*)
			awk -F'\t' '!/^#/ && !/^$/ && $2 ~ /^[0-9a-f]+$/ && length($2) == 12 {
				printf "line %d\t%s\t%s\t%s\t%s\n", NR, $2, $4, $3, $5 }' "$f"
			;;
		esac
	} | awk -F'\t' -v table="$UPSTREAM_COMMITS" '
		BEGIN {
			while ((getline l < table) > 0) {
				n++
				if (l ~ /^#/ || l == "") continue
				k = split(l, t, "\t")
				w = "tools/upstream-commits.tsv line " n ": "
				if (k != 5) { print w k " fields, not 5 (id, subject, release, author, source)"; continue }
				if (!(length(t[1]) == 12 && t[1] ~ /^[0-9a-f]+$/)) print w "id " t[1] " is not 12 hex digits"
				if (t[3] !~ /^v[0-9]+\.[0-9]+$/) print w "release " t[3] " is not vX.Y"
				if (t[4] !~ /^[^<>]+ <[^<>@ ]+@[^<> ]+>$/) print w "author " t[4] " is not Name <e-mail>"
				subj[t[1]] = t[2]; rel[t[1]] = t[3]; auth[t[1]] = t[4]
			}
		}
		{
			w = $1 ": " $2 " "
			if (!($2 in subj)) { print w "is not in tools/upstream-commits.tsv (not a verified mainline commit)"; next }
			if ($3 != subj[$2]) print w "subject \"" $3 "\", tools/upstream-commits.tsv has \"" subj[$2] "\""
			if ($4 != rel[$2]) print w "release \"" $4 "\", tools/upstream-commits.tsv has " rel[$2]
			if ($1 == "References") next
			a = $5
			if (match(a, /^[^<>]+ <[^<>]+>/)) a = substr(a, 1, RLENGTH)
			if (a != auth[$2]) print w "author \"" $5 "\", tools/upstream-commits.tsv has " auth[$2]
		}'
}

# upstream_rows STACK KIND: the rows of STACK/upstream.tsv of that kind.
upstream_rows() {
	awk -F'\t' -v k="$2" '!/^#/ && $1 == k' "$REPO/$1/upstream.tsv" 2>/dev/null
	return 0
}

# upstream_fix_counts STACK: "N A H" - the upstream fixes STACK/upstream.tsv
# lists, how many of them affect the stack, and how many of those it handles.
upstream_fix_counts() {
	upstream_rows "$1" fix | awk -F'\t' '
		{ n++ }
		$7 ~ /^yes/ { a++; if ($7 !~ /open/) h++ }
		END { printf "%d %d %d\n", n, a, h }'
}

# --- generated mail ----------------------------------------------------------

# noreply_address "Name <address>": true for an address no reply can reach
# (example.com, .org, .net, localhost, a no-reply mailbox).
noreply_address() {
	printf '%s\n' "$1" | grep -qiE '<([^@]*[.+_-])?(no-?reply|do-?not-?reply)[^@]*@|@([^>]*\.)?(no-?reply\.[^>]*|example\.(com|org|net)|localhost|localdomain)>$'
}

# mail_problems FILE [patch|cover [BASE]]: what is wrong with a generated mail. From: is a
# real "Name <address>" that is not the placeholder identity of the stored
# patches (tools/identity); a patch's last Signed-off-by: is that sender;
# the placeholder's address is nowhere in the mail (From, To, Cc, body);
# checkpatch.pl --strict of the newest base is clean (not for a cover
# letter). The mail is checked against itself: whoever runs this needs no
# git identity of their own. Prints nothing for a good mail.
mail_problems() {
	local m=$1 kind=${2:-patch} b=${3:-} ident pemail from sob why= out
	ident=$(head -n1 "$TOOLS/identity")
	pemail=${ident##*<}
	pemail=${pemail%>}
	from=$(awk 'NF == 0 { exit } /^From: / { print substr($0, 7); exit }' "$m")
	if ! printf '%s\n' "$from" | grep -qE '^[^<>@]*[^<>@ ] <[^<>@ ]+@[^<>@ ]+\.[^<>@ ]+>$'; then
		why="From: is not a real Name <address>: ${from:-none}"
	elif [ "${from% <*}" = "${ident% <*}" ] || [ "${from##* <}" = "<$pemail>" ]; then
		why="From: is the placeholder identity of the stored patches, not the sender's"
	fi
	if [ "$kind" = patch ]; then
		sob=$(sed -n '/^---$/q; s/^Signed-off-by: //p' "$m" | tail -n1)
		[ "$sob" = "$from" ] || why="${why:+$why; }the last Signed-off-by: is not the sender's (From: $from): ${sob:-none}"
	fi
	if grep -qiF "$pemail" "$m"; then
		why="${why:+$why; }the placeholder address $pemail is in the mail (line $(grep -m1 -inF "$pemail" "$m" | cut -d: -f1))"
	fi
	if [ "$kind" = patch ]; then
		out=$(checkpatch_patch "$m" "$b")
		[ -z "$out" ] || why="${why:+$why; }checkpatch: $(echo "$out" | paste -sd' ' -)"
	fi
	echo "$why"
}

# Name used for build trees: the stacks applied, or "base".
stackset_name() {
	if [ $# -eq 0 ]; then
		echo base
	else
		echo "$*" | tr ' ' '+'
	fi
}

# One writer per base at a time: the cached tree of a base is shared by all
# its build directories. Held until the calling tool exits.
lock_base() {
	[ "${KSTACKS_LOCKED:-}" = "$1" ] && return 0
	mkdir -p "$CACHE"
	exec 9>"$CACHE/.lock-$1"
	if ! flock -n 9; then
		echo "$prog: waiting for another run on base $1" >&2
		flock 9
	fi
	export KSTACKS_LOCKED=$1
}

# checkpatch ARGS...: the newest base's checkpatch.pl --strict, terse, first
# three findings (no output when clean). "-" reads a patch on stdin and
# checks it as a patch; a path of a file that git tracks, patch or not, is
# checked as a file (tools/lint does both for stack patches); "-f FILE"
# checks a source file.  Upstream commit ids in a message cannot be looked
# up here (no kernel history; checkpatch would take this repository's git
# for one): UNKNOWN_COMMIT_ID is left to a kernel tree, and lint checks
# every id a patch references against the stack's upstream.tsv instead.
checkpatch() {
	local newest
	newest=$(all_bases | tail -n1)
	ensure_base "$newest" >&2
	perl "$(base_src "$newest")/scripts/checkpatch.pl" --strict --no-tree --terse \
		--ignore UNKNOWN_COMMIT_ID --no-summary "$@" 2>&1 | head -n "${CHECKPATCH_LINES:-3}"
}

# maintainers_answered PATCH BASE: checkpatch asks of a patch that adds a
# file and does not touch MAINTAINERS: "does MAINTAINERS need updating?".
# BASE's own get_maintainer.pl answers that: true when it names a maintainer
# for every file PATCH adds (an F: pattern such as mm/ covers it already).
maintainers_answered() {
	local p=$1 b=$2 f
	[ -n "$b" ] || return 1
	ensure_base "$b" >&2
	for f in $(awk '/^--- \/dev\/null/ { n = 1; next } n && /^\+\+\+ b\// { print substr($2, 3) } { n = 0 }' "$p"); do
		[ -n "$(printf -- '--- /dev/null\n+++ b/%s\n@@ -0,0 +1 @@\n+x\n' "$f" |
			(cd "$(base_src "$b")" && perl scripts/get_maintainer.pl --nogit --nogit-fallback \
				--no-rolestats --m --nor --nol 2>/dev/null))" ] || return 1
	done
}

# checkpatch_patch FILE BASE [ARG]: checkpatch of a patch or patch mail
# (read from FILE, or given ARG, a path, instead), first three findings,
# without the MAINTAINERS question when BASE's MAINTAINERS answers it.
checkpatch_patch() {
	local p=$1 b=$2 out
	if [ -n "${3:-}" ]; then
		out=$(CHECKPATCH_LINES=100 checkpatch "$3")
	else
		out=$(CHECKPATCH_LINES=100 checkpatch - <"$p")
	fi
	if echo "$out" | grep -q 'does MAINTAINERS need updating?' && maintainers_answered "$p" "$b"; then
		out=$(echo "$out" | grep -v 'does MAINTAINERS need updating?')
	fi
	echo "$out" | head -n 3
}

# patch_problems FILE [BASE [PATH]]: what is wrong with a stored patch of
# BASE: From: and Signed-off-by: must be the project identity (the
# placeholder that keeps the queue from being tied to whoever edited it
# last; make series writes the sender's), and checkpatch.pl --strict of the
# newest base must be clean: given PATH (relative to the current
# directory, a git tree), checkpatch reads it there as a maintainer would
# run it, which also holds the patch's empty context lines to being empty.
# Prints nothing for a good patch.
patch_problems() {
	local p=$1 b=${2:-} ident why= out
	ident=$(head -n1 "$TOOLS/identity")
	grep -qxF "From: $ident" "$p" || why="no From: $ident"
	grep -qxF "Signed-off-by: $ident" "$p" || why="${why:+$why; }no Signed-off-by: $ident"
	out=$(checkpatch_patch "$p" "$b" "${3:-}")
	[ -z "$out" ] || why="${why:+$why; }checkpatch: $(echo "$out" | paste -sd' ' -)"
	echo "$why"
}

# Every stack's and base's metadata is read when a tool starts: a mistake
# there stops it before it does anything.
meta_load
