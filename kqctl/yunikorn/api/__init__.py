"""YuniKorn's configuration and cluster objects as typed values (no I/O beyond decoding text)."""
