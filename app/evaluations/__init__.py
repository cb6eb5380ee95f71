"""Evaluations, one module each: a job function returning a frozen result dataclass."""
