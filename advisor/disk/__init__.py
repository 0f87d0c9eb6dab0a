"""HDD physics: model, presets, mechanism, simulator, predictor and fitter.

Public API (stable; other parts of advisor build on it):

* :class:`advisor.disk.model.DiskModel` — frozen description of a drive: zones (R_OD, ρ or a
  table), seek curve (datasheet triple or measured table), rpm, overheads, cache settings;
  ``rate_mb_s_decimal``, ``seek_ms``, ``revolution_ms``, ``transfer_ms``, ``stroke``.
* :mod:`advisor.disk.presets` — ``list_presets()``, ``get_model(name_or_path)`` (preset name
  or a user's ``drive.toml``; see docs/drive-spec.md).
* :class:`advisor.disk.mechanism.Mechanism` — stateful actuator (head, rotation clock,
  read-ahead, write cache): ``service(op, offset, length, start_s) -> finish_s`` and
  ``choose(pending, now_s) -> index`` (SPTF with margin).
* :func:`advisor.disk.simulate.simulate` — streams on one drive → IOPS, MB/s, latencies.
* :func:`advisor.disk.replay.replay` — a traced request stream replayed on one drive, order
  and dependencies kept; :func:`advisor.disk.replay_devices.replay_on_devices` the same across
  several devices (drives and flat ones: a tier plan); :mod:`advisor.disk.replay_stream` the
  stream, the replayed times and each request's cause they share.
* :mod:`advisor.disk.predict` — microsecond analytic expectations for the optimizer.
* :func:`advisor.disk.fit.fit_profile` — a :class:`~advisor.model.DiskProfile` → DiskModel.

The physics and the validation against published figures are described in
docs/disk-model.md.
"""
