# `sam build` (BuildMethod: makefile in template.yaml) runs `make build-GraphQLFunction` in a copy of
# this directory, with ARTIFACTS_DIR set. Run `npm ci` first: the bundle is made from node_modules.
#
# One ESM bundle of src/entry/lambda.ts and everything it imports (the AWS SDK included, so the deployed
# code runs the SDK version the lock file pins, not the runtime's), minified with names kept and a
# source map beside it (set NODE_OPTIONS=--enable-source-maps to use it in stack traces).
# src/schema reads its *.graphql files from beside the module at startup, so they are copied next
# to the bundle.
ESBUILD ?= node_modules/.bin/esbuild

# Apollo Server's usage-reporting, inline-trace and schema-reporting plugins (and the protobuf
# encoder they pull in, about 300 KB) stay out of it: src/http/apollo.ts installs their Disabled
# plugins, so Apollo never imports them (its dynamic imports of them are left unresolved here).
APOLLO_UNUSED = --external:./plugin/usageReporting/index.js --external:./plugin/inlineTrace/index.js \
	--external:./plugin/schemaReporting/index.js

build-GraphQLFunction:
	$(ESBUILD) src/entry/lambda.ts --bundle --platform=node --format=esm --target=node22 $(APOLLO_UNUSED) \
		--outfile=$(ARTIFACTS_DIR)/lambda.mjs --minify --keep-names --sourcemap --legal-comments=none --log-level=warning \
		"--banner:js=import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);"
	cp src/schema/*.graphql $(ARTIFACTS_DIR)/

# The outbox relay (src/entry/lambda-relay.ts, on the table's stream): its own bundle, the same way; it
# serves no GraphQL, so no schema files beside it.
build-RelayFunction:
	$(ESBUILD) src/entry/lambda-relay.ts --bundle --platform=node --format=esm --target=node22 \
		--outfile=$(ARTIFACTS_DIR)/lambda-relay.mjs --minify --keep-names --sourcemap --legal-comments=none --log-level=warning \
		"--banner:js=import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);"
