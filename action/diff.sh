#!/usr/bin/env bash
# The action's diff step: the queue-configuration folder at the pull request's base commit against the checkout,
# as a markdown comment on the pull request (kqctl diff -o markdown), updated in place on later pushes.
# Needs git (the base commit fetched: checkout with fetch-depth 0) and the GitHub CLI (gh, on every hosted runner).
set -euo pipefail
folder="${KQCTL_DIFF_PATH:?the folder to compare (diff-path)}"
base="${KQCTL_BASE_SHA:?the base commit of the pull request}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
git cat-file -e "$base^{commit}" 2>/dev/null || git fetch --quiet --depth=1 origin "$base"
mkdir -p "$work/base"
if git ls-tree -r --name-only "$base" -- "$folder" | grep -q .; then
  git archive "$base" -- "$folder" | tar -x -C "$work/base"
  before="$work/base/$folder"
else
  before=""
fi
comment="$work/comment.md"
status=0
if [ -z "$before" ]; then
  printf '### kqctl diff\n\n`%s` is new in this pull request: nothing to compare.\n' "$folder" > "$comment"
else
  args=("$before" "$folder" -o markdown)
  [ -n "${KQCTL_DIFF_WITH:-}" ] && args+=(--with "$KQCTL_DIFF_WITH")
  [ "${KQCTL_FAIL_ON_REGRESSION:-false}" = "true" ] && args+=(--fail-on regression)
  kqctl diff "${args[@]}" > "$comment" || status=$?
  if [ "$status" -ge 2 ]; then
    exit "$status"  # not a regression: kqctl could not compare (its message is on stderr)
  fi
fi
if [ -n "${KQCTL_PR_NUMBER:-}" ]; then
  gh pr comment "$KQCTL_PR_NUMBER" --body-file "$comment" --edit-last 2>/dev/null \
    || gh pr comment "$KQCTL_PR_NUMBER" --body-file "$comment"
else
  cat "$comment"
fi
exit "$status"
