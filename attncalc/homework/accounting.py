"""Homework for kind accounting: placeholder replaced below."""
