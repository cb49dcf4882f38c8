#!/usr/bin/env bash
# Renders nftables.conf.tmpl for one GPU node and checks it with `nft -c`.
#
#   LUNANEXA_CONTROLLER_ADDRS="10.20.0.21, 10.20.0.22" ... infra/network-policy/render.sh > /etc/nftables.d/lunanexa.nft
#   nft -f /etc/nftables.d/lunanexa.nft
#
# Every variable must be set (an empty one would silently open or break a
# rule); the variables are listed in nftables.conf.tmpl.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
vars=(
  LUNANEXA_CONTROLLER_ADDRS
  LUNANEXA_GATEWAY_ADDRS
  LUNANEXA_MONITORING_ADDRS
  LUNANEXA_ADMIN_ADDRS
  LUNANEXA_AGENT_SSH_PORT
  LUNANEXA_AGENT_HTTP_PORT
  LUNANEXA_RUNTIME_PORTS
)
missing=()
for var in "${vars[@]}"; do
  [[ -n "${!var:-}" ]] || missing+=("$var")
done
if ((${#missing[@]} > 0)); then
  echo "render.sh: set ${missing[*]} (see nftables.conf.tmpl)" >&2
  exit 78
fi

# Substitute only our variables, so nothing else in the file is touched
# (the single quotes are deliberate: envsubst wants the literal ${NAME} list).
# shellcheck disable=SC2016
rendered="$(envsubst "$(printf '${%s} ' "${vars[@]}")" <"$here/nftables.conf.tmpl")"
if command -v nft >/dev/null; then
  nft -c -f - <<<"$rendered" >&2 || {
    echo "render.sh: nft rejected the rendered rules (nothing was loaded)" >&2
    exit 1
  }
fi
printf '%s\n' "$rendered"
