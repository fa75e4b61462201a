# `sam build` (BuildMethod: makefile in template.yaml) runs `make build-GraphQLFunction` in a copy of
# this directory, with ARTIFACTS_DIR set. Run `npm ci` first: the bundle is made from node_modules.
#
# Each function is one ES module bundle of its entry and everything it imports (the AWS SDK included),
# minified, with a source map beside it: src/ops/bundle.ts (`lambdaBundle`) defines it, for these
# targets and for `npm run bench:cold` alike. The GraphQL function's SDL files go beside its bundle,
# where src/schema reads them at startup; the outbox relay serves no GraphQL, so none beside it.
BUNDLE ?= node --import tsx src/entry/cli/bundle-lambda.ts

build-GraphQLFunction:
	$(BUNDLE) src/entry/lambda.ts $(ARTIFACTS_DIR)/lambda.mjs

# The outbox relay (src/entry/lambda-relay.ts, on the table's stream): its own bundle.
build-RelayFunction:
	$(BUNDLE) src/entry/lambda-relay.ts $(ARTIFACTS_DIR)/lambda-relay.mjs
