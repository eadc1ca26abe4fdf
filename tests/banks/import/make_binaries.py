"""Writes the binary fixtures beside this file (questions.xlsx, merged.xlsx, paper.docx,
table.docx) from the text below; run it again after changing them: python make_binaries.py"""

from pathlib import Path

import docx
import openpyxl

HERE = Path(__file__).parent
ROWS = [
    ["题型", "题干", "选项A", "选项B", "选项C", "答案", "解析", "标签"],
    ["单选", "哪个是优化器", "Adam", "ReLU", "L2", "A", "Adam 是优化器。", "optim"],
    ["多选题", "哪些是激活函数", "ReLU", "tanh", "SGD", "AB", None, None],
    ["判断", "Dropout 只在训练时使用。", None, None, None, True, None, None],
    ["填空", "π 约等于____。", None, None, None, 3.14, None, None],
]


def xlsx() -> None:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "题库"
    for row in ROWS:
        sheet.append(row)
    book.save(HERE / "questions.xlsx")
    sheet.merge_cells("A2:A3")
    book.save(HERE / "merged.xlsx")


def word() -> None:
    document = docx.Document()
    document.add_paragraph("深度学习测验")
    document.add_paragraph("一、单选题（每题1分，共2分）")
    document.add_paragraph("1. 以下哪个是优化器（ ）")
    document.add_paragraph("A. Adam  B. ReLU  C. L2")
    document.add_paragraph("2. 以下哪个是激活函数（ ）")
    table = document.add_table(rows=1, cols=3)
    for cell, text in zip(table.rows[0].cells, ("A. SGD", "B. ReLU", "C. L1"), strict=True):
        cell.text = text
    document.add_paragraph("二、判断题（每题1分，共1分）")
    document.add_paragraph("3. 过拟合指模型在训练集上表现差。")
    document.add_paragraph("参考答案")
    document.add_paragraph("1. A  2. B  3. 错")
    document.save(HERE / "paper.docx")

    document = docx.Document()
    document.add_paragraph("题库（表格）")
    table = document.add_table(rows=len(ROWS), cols=len(ROWS[0]))
    for row, values in zip(table.rows, ROWS, strict=True):
        for cell, value in zip(row.cells, values, strict=True):
            cell.text = "" if value is None else ("正确" if value is True else str(value))
    document.save(HERE / "table.docx")


if __name__ == "__main__":
    xlsx()
    word()
