"""Builders the infra components share: not components, and not an API for programs."""
