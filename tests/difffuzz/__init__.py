"""The differential SQL fuzzer: Cadenza against PostgreSQL 15 (README.md)."""
