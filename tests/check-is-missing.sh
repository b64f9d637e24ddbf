#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: stands in for the unit tests when configure found no Check, and fails loudly.
echo "ERROR: the unit tests need Check (Debian: apt-get install check); rerun configure after installing it"
exit 99
