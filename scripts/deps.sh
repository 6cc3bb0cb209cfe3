#!/usr/bin/env bash
# Installs the Debian packages listed in scripts/deps.txt that are not installed yet, and nothing
# else (`apt-get update` runs once, only when something is missing); then checks that every program,
# file and C library the list promises is really there, and fails loudly naming any that is not.
set -euo pipefail
list=${1:-$(dirname "$0")/deps.txt}
packages=()
promises=()
while read -r pkg rest; do
	[[ -z $pkg || $pkg == \#* ]] && continue
	packages+=("$pkg")
	for w in $rest; do promises+=("$pkg:$w"); done
done <"$list"

missing=()
for p in "${packages[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
		missing+=("$p")
	fi
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "deps: installing missing Debian packages: ${missing[*]}"
	sudo=""
	if [ "$(id -u)" -ne 0 ]; then
		sudo="sudo"
	fi
	# another apt (unattended upgrades, a second make) may hold the lock: wait for it, do not fail
	apt=($sudo env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 -y -qq)
	"${apt[@]}" update
	"${apt[@]}" install "${missing[@]}"
	echo "deps: done"
fi

bad=()
for pw in "${promises[@]}"; do
	pkg=${pw%%:*} w=${pw#*:}
	case $w in
	/*) [ -e "$w" ] || bad+=("$w (from $pkg)") ;;
	pkg:*) pkg-config --exists "${w#pkg:}" || bad+=("C library ${w#pkg:} (pkg-config, from $pkg)") ;;
	*) command -v "$w" >/dev/null || bad+=("program $w (from $pkg)") ;;
	esac
done
if [ ${#bad[@]} -gt 0 ]; then
	echo "deps: installed, but still missing:" >&2
	printf '  %s\n' "${bad[@]}" >&2
	exit 1
fi
