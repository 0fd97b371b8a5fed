#!/bin/sh
# Every relative link of README.md and docs/*.md names a file that exists (and, with #, a heading there).
cd "${1:-.}" || exit 2
bad=0
for f in README.md docs/*.md; do
  dir=$(dirname "$f")
  grep -o '](\([^)]*\))' "$f" | sed 's/^](//; s/)$//' | grep -v '^https\?:' | while read -r link; do
    path=${link%%#*}; anchor=${link#*#}; [ "$anchor" = "$link" ] && anchor=
    if [ -z "$path" ]; then target=$f; else target=$dir/$path; fi
    if [ ! -e "$target" ]; then echo "$f: $link: no such file"; continue; fi
    if [ -n "$anchor" ]; then
      grep '^#' "$target" | sed 's/^#* //' | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9 _-]//g; s/ /-/g' | grep -qx "$anchor" \
        || echo "$f: $link: no such heading"
    fi
  done
done
