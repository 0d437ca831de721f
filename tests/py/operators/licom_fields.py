"""Smooth LICOM-like ocean fields (what compression meets in an ocean model's history, unlike
random data): temperature and salinity over depth x lat x lon, sea-surface height over lat x lon,
and an integer land mask. Shared by the writer (operators_write.py) and the tests that check
what independent readers get back."""
import numpy as np

NZ, NY, NX = 20, 48, 72
STEPS = 3


def grid():
    k, j, i = np.meshgrid(np.arange(NZ), np.arange(NY), np.arange(NX), indexing="ij")
    lat = np.pi * ((j + 0.5) / NY - 0.5)
    lon = 2 * np.pi * i / NX
    return k, lat, lon


def field(name, step):
    k, lat, lon = grid()
    if name == "temp":
        return (2 + 26 * np.exp(-k / 6) * np.cos(lat)
                + 1.5 * np.sin(5 * lon + 0.1 * step) * np.cos(3 * lat) * np.exp(-k / 12))
    if name == "salt":
        return 34.5 + 0.8 * np.cos(2 * lat) * np.exp(-k / 10) + 0.05 * np.sin(3 * lon - step)
    if name == "ssh":
        return (0.6 * np.sin(2 * lat[0]) * np.cos(lon[0] + 0.2 * step)).astype(np.float32)
    if name == "mask":
        return (np.cos(3 * lon[0]) * np.cos(2 * lat[0]) > -0.3).astype(np.int32)
    raise KeyError(name)


VARIABLES = {  # name: (dims, dtype)
    "temp": (("depth", "lat", "lon"), np.float64),
    "salt": (("depth", "lat", "lon"), np.float64),
    "ssh": (("lat", "lon"), np.float32),
    "mask": (("lat", "lon"), np.int32),
}
