#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run by "make mutants": apply each mutation of mutants.txt to each base's
# extracted page_batch.h (identical headers are tested once) and check that
# the unit test catches it.  Args: BASE:variant+variant+... ; env BUILD,
# MAKE, UNIT.  Exit 1 if any mutant survives.
set -u
HEADER=include/linux/page_batch.h
out="$BUILD/mutants"
rm -rf "$out"; mkdir -p "$out"
caught=0 survived=0 skipped=0
declare -A seen

for spec in "$@"; do
	base=${spec%%:*}
	variants=${spec#*:}; variants=${variants//+/ }
	src="$BUILD/$base/$HEADER"
	sum=$(sha1sum < "$src" | cut -c1-40)
	if [ -n "${seen[$sum]:-}" ]; then
		echo "$base: header identical to ${seen[$sum]}'s, mutants not repeated"
		continue
	fi
	seen[$sum]=$base
	# Most discriminating models first; stop at the first that catches.
	order=$(for v in sparse-adj sparse discontig vmemmap flat; do
		case " $variants " in *" $v "*) echo $v;; esac; done)
	while IFS=$'\t' read -r name expr; do
		case "$name" in ''|'#'*) continue;; esac
		dir="$out/$base/$name"
		mkdir -p "$dir/include/linux"
		perl -0pe "$expr" "$src" > "$dir/$HEADER"
		if cmp -s "$src" "$dir/$HEADER"; then
			rm -rf "$dir"; skipped=$((skipped + 1)); continue
		fi
		verdict=""
		for v in $order; do
			if ! $MAKE -s -C "$UNIT" one-test BUILD="$BUILD" BASE="$base" VARIANT="$v" \
				HDR_DIR="$dir/include" OUT="$dir/test-$v" > "$dir/build-$v.log" 2>&1; then
				verdict="caught by the build ($v)"; break
			fi
			if ! "$dir/test-$v" > "$dir/run-$v.log" 2>&1; then
				n=$(grep -c '^FAIL' "$dir/run-$v.log")
				if grep -qE 'ERROR: AddressSanitizer|runtime error' "$dir/run-$v.log"; then
					why=$(grep -m1 -oE 'AddressSanitizer: [a-z-]+|runtime error: .{0,40}' "$dir/run-$v.log")
					verdict="caught ($v: $why)"
				else
					verdict="caught ($v: $n failures, e.g. $(grep -m1 '^FAIL' "$dir/run-$v.log" | cut -c7-110))"
				fi
				break
			fi
		done
		if [ -n "$verdict" ]; then
			caught=$((caught + 1)); echo "$base $name: $verdict"
		else
			survived=$((survived + 1)); echo "$base $name: SURVIVED (header in $dir)"
		fi
	done < "$UNIT/mutants.txt"
done
echo "mutants: $caught caught, $survived survived, $skipped not applicable"
[ "$survived" = 0 ]
