"""Units as plain named floats (SI inside the engine; convert once, at the edge).

GB and GiB are different words: datasheets use both, and we keep whichever they state.
"""

from __future__ import annotations

kilo = 1e3
mega = 1e6
giga = 1e9
tera = 1e12
peta = 1e15

kibi = 2.0**10
mebi = 2.0**20
gibi = 2.0**30
tebi = 2.0**40

KB = kilo
MB = mega
GB = giga
TB = tera
PB = peta
GiB = gibi
TiB = tebi

ms = 1e-3
us = 1e-6
minute = 60.0
hour = 3600.0
day = 86400.0
year = 365.0 * day
