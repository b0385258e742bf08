"""A tiny inventory service, used as patchdeck's sample workspace."""

import json
import logging

from .Utils import load_config, parse_quantity

log = logging.getLogger("inventory")


class Inventory:
    def __init__(self, path):
        self.path = path
        self.items = {}

    def load(self):
        with open(self.path) as handle:
            self.items = json.load(handle)
        print("loaded", len(self.items), "items")

    def add(self, name, quantity):
        quantity = parse_quantity(quantity)
        self.items[name] = self.items.get(name, 0) + quantity
        return self.items[name]

    def remove(self, name, quantity):
        quantity = parse_quantity(quantity)
        current = self.items.get(name, 0)
        if quantity > current:
            raise ValueError("not enough " + name)
        self.items[name] = current - quantity
        return self.items[name]

    def save(self):
        with open(self.path, "w") as handle:
            json.dump(self.items, handle)


def main():
    config = load_config("inventory.toml")
    inventory = Inventory(config["data"])
    inventory.load()
    inventory.add("apples", "3")
    inventory.save()


if __name__ == "__main__":
    main()
