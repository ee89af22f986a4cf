#!/usr/bin/env bash
# The action's validate step: workflow-command annotations (-o github) on the files of the pull request.
# Inputs come as environment variables (see action.yml); runs as plain shell anywhere kqctl is installed.
set -euo pipefail
read -r -a paths <<< "${KQCTL_PATHS:-.}"
read -r -a extra <<< "${KQCTL_ARGS:-}"
versions=()
[ -n "${KQCTL_KUEUE_VERSION:-}" ] && versions+=(--kueue-version "$KQCTL_KUEUE_VERSION")
[ -n "${KQCTL_VOLCANO_VERSION:-}" ] && versions+=(--volcano-version "$KQCTL_VOLCANO_VERSION")
[ -n "${KQCTL_YUNIKORN_VERSION:-}" ] && versions+=(--yunikorn-version "$KQCTL_YUNIKORN_VERSION")
exec kqctl validate -R "${paths[@]}" -o github --fail-on "${KQCTL_FAIL_ON:-error}" ${versions[@]+"${versions[@]}"} \
  ${extra[@]+"${extra[@]}"}
