"""The emulated hard disk: a FUSE file whose reads and writes take the time the disk model says.

``device`` attaches it as a loop device (start, stop, stale clean-up); ``server`` is the FUSE
process; ``fs`` the filesystem it serves; ``actuator`` the one-actuator queue and clock;
``timing`` how a timing model is named and built; ``calibrate`` the per-IO overhead of the FUSE
path; ``system`` the mount/loop/process plumbing. See docs/emulator.md.
"""
