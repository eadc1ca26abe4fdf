"""Chart renderers for the study tools' progress picture (bot/study/charts.py)."""
