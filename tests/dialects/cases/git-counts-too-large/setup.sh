#!/bin/bash
# creates the tree the patch is applied to
set -e
printf -- '# pancakes\n\nflour 200g\nmilk 300ml\neggs 2\nsalt 1 pinch\nsugar 1 spoon\n\nmix, rest, fry\n' > $'recipe.txt'
