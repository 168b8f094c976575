"""The sizing and cost advisor behind `python -m blueprints size`: workload in, GPUs, time and cost out.

memory.py (bytes per replica, with formulas), flops.py (compute and time at an MFU), candidates.py (catalog
shapes per region with prices per purchase option), commitments.py (break-even and commitment level),
history.py (forecast from usage history), write_stack.py (the stack for the chosen candidate), render.py.
"""
