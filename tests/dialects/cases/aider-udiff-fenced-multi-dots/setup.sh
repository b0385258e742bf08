#!/bin/bash
# creates the tree the patch is applied to
set -e
printf -- 'def greet(name):\n    print('\''hi'\'', name)\n\ndef main():\n    greet('\''bob'\'')\n' > $'greet.py'
printf -- '# pancakes\n\nflour 200g\nmilk 300ml\neggs 2\nsalt 1 pinch\nsugar 1 spoon\n\nmix, rest, fry\n' > $'recipe.txt'
