"""Loads one of examples/python/models/*.py as a module, for the scripts
that dump a model example's traced IR and inputs for pto-run."""
import importlib.util
import os


def load(root, name):
    path = os.path.join(root, "examples", "python", "models", name + ".py")
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
