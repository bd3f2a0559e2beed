"""Turning batch results into tables: per-clan records, draft picks, win-rate summaries."""
