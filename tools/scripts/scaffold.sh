#!/usr/bin/env bash
# Creates the standard files of a workspace project: tools/scripts/scaffold.sh <libs|apps>/<name> "<tags>"
set -euo pipefail
dir=$1; tags=$2; name=$(basename "$dir")
mkdir -p "$dir/src"
tag_json=$(printf '%s' "$tags" | awk -v RS=',' '{gsub(/^ +| +$/,""); if(length) printf "%s\"%s\"", (n++?", ":""), $0}')
[ -f "$dir/package.json" ] || cat > "$dir/package.json" <<JSON
{
  "name": "@caravel/$name",
  "version": "0.1.0",
  "private": true,
  "type": "module",
  "exports": {
    ".": {
      "@caravel/source": "./src/index.ts",
      "default": "./dist/index.js"
    }
  },
  "nx": {
    "tags": [$tag_json],
    "targets": {
      "lint": {},
      "typecheck": {},
      "test": {},
      "test:medium": {},
      "build": {}
    }
  }
}
JSON
rel=$(realpath --relative-to="$dir" .)
[ -f "$dir/tsconfig.json" ] || cat > "$dir/tsconfig.json" <<JSON
{
  "extends": "$rel/tsconfig.base.json",
  "include": ["src/**/*.ts", "e2e/**/*.ts"]
}
JSON
[ -f "$dir/jest.config.cjs" ] || cat > "$dir/jest.config.cjs" <<JS
module.exports = require('$rel/jest.preset.cjs').jestConfig(__dirname);
JS
[ -f "$dir/jest.medium.config.cjs" ] || cat > "$dir/jest.medium.config.cjs" <<JS
module.exports = require('$rel/jest.preset.cjs').jestConfig(__dirname, 'medium');
JS
echo "scaffolded $dir"
