"""RunStatus: the integer ``status`` of a Run (the API describes these values in its Run schema)."""

from enum import IntEnum


class RunStatus(IntEnum):
    INVALID = 0
    RUNNING = 1
    EXPORTING = 2
    STARTING = 3
    QUEUING = 4
    STOPPING = 5
    FAILURE = 6
    FAILED = 7
    STOPPED = 8
    COMPLETED = 9
    SUCCESS = 10
    SKIPPED = 11
    WAITING = 12
