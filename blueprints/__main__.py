import gc
import os
import sys

# The collector is off while the CLI imports (about 100k container objects that live as long as the process, each
# allocation burst a collection that walks them all and frees nothing); `run` turns it back on for every command but
# `plan`, which keeps it off (cli.quiet_collector; issue #42).
gc.disable()

# gRPC (the Pulumi SDK's engine connection, here the offline mocks') logs at ERROR level to standard error on its
# own, e.g. an interrupted epoll_wait on a loaded machine, which would break the CLI's one-line error contract.
# Errors that matter reach us as exceptions; a user who wants gRPC's log sets GRPC_VERBOSITY themselves.
os.environ.setdefault("GRPC_VERBOSITY", "NONE")

from .cli import main  # noqa: E402 - after the environment gRPC reads at import

sys.exit(main())
