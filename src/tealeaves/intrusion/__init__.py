"""Word intrusion: intruder sets (Chang et al. 2009) shared by the human and automated tasks."""

from tealeaves.intrusion.intruders import PROTOCOLS, IntruderSet, IntruderSets, intruder_sets

__all__ = ["PROTOCOLS", "IntruderSet", "IntruderSets", "intruder_sets"]
