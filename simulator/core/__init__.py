"""What both engines share: codes, random streams, the batch plan and result, the state header and
its log, loading helpers."""
