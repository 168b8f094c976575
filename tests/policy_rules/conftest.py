import pytest

from blueprints.offline.policy import PackSession


@pytest.fixture(scope="session")
def pack_sessions():
    """One running process per pack for the whole test session, started on first use."""
    sessions: dict[str, PackSession] = {}

    def get(name: str) -> PackSession:
        if name not in sessions:
            sessions[name] = PackSession(name)
        return sessions[name]

    yield get
    for session in sessions.values():
        session.close()
