#!/bin/sh
# UserPromptSubmit: plain text on stdout is context for the model (Codex
# trims it). A real project would print `git branch --show-current`.
cat > /dev/null
echo "You are on branch main; the release is frozen, keep changes small."
