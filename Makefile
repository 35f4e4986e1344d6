# The two commands: `make run` (set up and start the site) and `make test` (install what tests need, run every test).
.PHONY: run test setup frontend content prod bench api-types

run:
	bash scripts/run.sh

test:
	bash scripts/test.sh

setup:
	bash scripts/setup.sh

prod:
	bash scripts/prod.sh

bench:
	bash scripts/bench.sh

api-types:
	bash scripts/api-types.sh
