"""Homework for kind moe (placeholder, replaced below)."""
