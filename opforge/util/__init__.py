"""Utilities shared across opforge (nested structures: nest)."""
