"""Helpers for the inventory service."""

import tomllib


def load_config(path):
    with open(path, "rb") as handle:
        return tomllib.load(handle)


def parse_quantity(text):
    value = int(text)
    if value < 0:
        raise ValueError("quantity must not be negative")
    return value
