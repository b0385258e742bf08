#!/bin/bash
# creates the tree the patch is applied to
set -e
printf -- 'begin\nx\ny\nend\nbegin\nx\ny\nend\nbegin\nx\ny\nend\n' > $'rep'
