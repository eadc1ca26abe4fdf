"""Chart renderers for the study tools' progress picture (bot/views/charts.py)."""
