#!/usr/bin/env node
require("../dist/app/cli.js");
