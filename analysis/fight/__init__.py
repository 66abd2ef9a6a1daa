"""Fights: rounds to defeat a target, exact (a dynamic programme over hit points), simulated and drawn."""
