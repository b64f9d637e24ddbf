#!/bin/sh
# SPDX-License-Identifier: MIT
# Generates configure and the Makefile templates from a git checkout.
exec autoreconf -fi "$@"
